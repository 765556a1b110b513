/**
 * Evidence checks per second on one core (this process, nothing else running in it): `checkEvidence` on valid
 * evidence from the demo vendor, against the bare ECDSA P-256 verification it contains, measured in the same run.
 * Two cases: the leaf certificate seen before (its chain result is cached) and a new leaf every time.
 */
import { createVerify, createPrivateKey, sign as signRaw } from "node:crypto";
import { Wallet } from "ethers";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { createDemoVendor } from "../../subgraphs/shared/crypto/vendor-ca.js";
import { checkEvidence } from "../../subgraphs/verify/evidence/check.js";
import { buildEvidence } from "../../subgraphs/verify/evidence/kit.js";
import { parseCanonicalJson } from "../../subgraphs/verify/evidence/canonical.js";
import { validateEvidenceShape, type ChipChallenge, type EvidenceFile } from "../../subgraphs/verify/evidence/schema.js";
import { loadTrustBundle } from "../../subgraphs/verify/evidence/trust.js";

const ROUND_MS = 2000;
/** New-leaf checks per round: that case is timed over a fixed count, since every check needs a leaf never seen. */
const FRESH_PER_ROUND = 150;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function perSecond(work: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  let done = 0;
  for (; performance.now() - start < ROUND_MS; done++) await work();
  return (done * 1000) / (performance.now() - start);
}

async function perCount(count: number, work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) await work();
  return (count * 1000) / (performance.now() - start);
}

export async function benchEvidenceChecks(rounds: number): Promise<void> {
  const config = loadConfig({ DATA_DIR: "/tmp/unused" });
  const vendor = await createDemoVendor("bench");
  const trust = await loadTrustBundle(`${vendor.rootCertPem}\n${vendor.intermediateCertPem}`);
  const controller = Wallet.createRandom();
  const now = new Date();
  const challenge: ChipChallenge = {
    chainId: "3338",
    didController: controller.address,
    expiresAt: String(Math.floor(now.getTime() / 1000) + 300),
    machineDid: `did:${config.namespace.didMethod}:2`,
    machineId: "2",
    nonce: `0x${"ab".repeat(32)}`,
    profile: config.vendor.profile,
    protocol: `${config.namespace.verifier}.chip-proof/1`,
    verifier: config.namespace.verifier,
  };
  const evidenceFor = async (chipName: string): Promise<EvidenceFile> => {
    const chip = await vendor.issueChip(chipName);
    const text = buildEvidence({
      challenge,
      leafCertPem: chip.leafCertPem,
      chipPrivateKeyPem: chip.privateKeyPem,
      controllerPrivateKey: controller.privateKey,
    });
    const shape = validateEvidenceShape(parseCanonicalJson(text));
    if (!shape.ok) throw new Error(shape.reason);
    return shape.evidence;
  };
  const context = {
    challenge,
    machine: { machineId: "2", machineDid: challenge.machineDid, effectiveController: controller.address, chainId: "3338" },
    trust,
    now,
    namespace: config.namespace,
    vendor: config.vendor,
  };
  const seen = await evidenceFor("seen");
  // Enough distinct leaves that no "new leaf" check ever sees a leaf twice (a seen leaf's chain result is cached).
  const fresh = await Promise.all(Array.from({ length: FRESH_PER_ROUND * rounds }, (_, i) => evidenceFor(`fresh-${i}`)));
  let nextFresh = 0;
  const takeFresh = () => {
    const evidence = fresh[nextFresh++];
    if (!evidence) throw new Error("bench ran out of fresh leaves");
    return evidence;
  };
  const first = await checkEvidence(seen, context);
  if (!first.ok) throw new Error(`bench evidence rejected: ${first.reason}`);

  // Baseline: one ECDSA P-256 / SHA-256 verification with node:crypto (OpenSSL).
  const key = createPrivateKey((await vendor.issueChip("baseline")).privateKeyPem);
  const message = Buffer.from("baseline");
  const signature = signRaw("sha256", message, key);
  const verifyOnce = () => createVerify("sha256").update(message).verify(key, signature);

  const baseline: number[] = [];
  const cached: number[] = [];
  const uncached: number[] = [];
  for (let round = 0; round < rounds; round++) {
    baseline.push(await perSecond(verifyOnce));
    cached.push(await perSecond(() => checkEvidence(seen, context)));
    uncached.push(await perCount(FRESH_PER_ROUND, () => checkEvidence(takeFresh(), context)));
  }
  const b = median(baseline);
  const c = median(cached);
  const u = median(uncached);
  console.log(`\nEvidence checks on one core, ${rounds} x ${ROUND_MS / 1000}s rounds (medians)`);
  console.log(`  bare P-256 verify (baseline)   ${b.toFixed(0).padStart(8)} /s`);
  console.log(`  checkEvidence, leaf seen       ${c.toFixed(0).padStart(8)} /s   (${((100 * c) / b).toFixed(1)}% of baseline)`);
  console.log(`  checkEvidence, new leaf        ${u.toFixed(0).padStart(8)} /s   (${((100 * u) / b).toFixed(1)}% of baseline)`);
}

/**
 * Evidence checks per second on one core (this process, nothing else running in it): `checkEvidence` on valid
 * evidence from the demo vendor, against the bare ECDSA P-256 verification it contains, measured in the same run.
 * Two cases: the leaf certificate seen before (its chain result is cached) and a new leaf every time. Beside them, in
 * the same rounds: ethers' `verifyMessage` of the same controller message, and the two parts that moved to native code
 * (secp256k1 recovery, Keccak-256 of the controller message) in their JavaScript and native implementations, and the
 * native floor of a new-leaf check (the native operations it cannot skip, timed alone): a new leaf can never be
 * faster than that floor, which is itself a fraction of one bare verify, so its goal is stated against the floor.
 */
import { createPublicKey, createVerify, createPrivateKey, sign as signRaw, verify as verifyOneShot } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Signature, Wallet, verifyMessage } from "ethers";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { createDemoVendor } from "../../subgraphs/shared/crypto/vendor-ca.js";
import { checkEvidence } from "../../subgraphs/verify/evidence/check.js";
import { buildEvidence } from "../../subgraphs/verify/evidence/kit.js";
import { parseCanonicalJson } from "../../subgraphs/shared/json/strict.js";
import { validateEvidenceShape, type ChipChallenge, type EvidenceFile } from "../../subgraphs/verify/evidence/schema.js";
import { loadTrustBundle } from "../../subgraphs/verify/evidence/trust.js";
import { recoverAddressNative, recoverAddressNoble } from "../../subgraphs/verify/evidence/recover.js";
import { keccak256Native, keccak256Noble } from "../../subgraphs/verify/evidence/keccak.js";
import { chipPrehashInput, controllerMessage, eip191Digest } from "../../subgraphs/verify/evidence/format.js";
import { fromHex, sha256 } from "../../subgraphs/verify/evidence/encoding.js";
import os from "node:os";
import { median } from "./stats.js";

const ROUND_MS = 2000;
/** New-leaf checks per round: that case is timed over a fixed count, since every check needs a leaf never seen. */
const FRESH_PER_ROUND = 150;

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
  const before = await beforeCheckout(vendor, context, fresh.length, evidenceFor);

  // Baseline: one ECDSA P-256 / SHA-256 verification with node:crypto (OpenSSL).
  const key = createPrivateKey((await vendor.issueChip("baseline")).privateKeyPem);
  const message = Buffer.from("baseline");
  const signature = signRaw("sha256", message, key);
  const verifyOnce = () => createVerify("sha256").update(message).verify(key, signature);

  // The controller message of the seen evidence (about 1.1 KB), as ethers and our parts see it.
  const controllerText = controllerMessageOf(seen);
  const controllerSig = Signature.from(seen.controllerProof.signature);
  const parts = { r: BigInt(controllerSig.r), s: BigInt(controllerSig.s), recovery: controllerSig.yParity };
  const digest = eip191Digest(controllerText);
  if (verifyMessage(controllerText, seen.controllerProof.signature) !== controller.address) throw new Error("bench message");
  const framed = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${controllerText.length}${controllerText}`);

  // The native work a new-leaf check cannot skip: the leaf's signature under the intermediate and the chip signature
  // (two P-256 verifies, the second under the new key, whose first use costs OpenSSL more), importing the leaf's public
  // key (a JWK, as the check does: WebCrypto's raw import measured within a few percent of it, its JavaScript layer
  // eating what OpenSSL saves), the controller's secp256k1 recovery and the Keccak-256 of its message. Distinct keys,
  // so no import is a cache hit.
  const leafKeys = await Promise.all(
    Array.from({ length: 64 }, async (_, i) => {
      const chipKey = createPrivateKey((await vendor.issueChip(`floor-${i}`)).privateKeyPem);
      const { x, y } = chipKey.export({ format: "jwk" });
      return { jwk: { kty: "EC", crv: "P-256", x, y }, signature: signRaw("sha256", message, chipKey) };
    }),
  );
  let nextKey = 0;
  const nativeFloor = () => {
    const { jwk, signature: chipSignature } = leafKeys[nextKey]!;
    nextKey = (nextKey + 1) % leafKeys.length;
    const leafKey = createPublicKey({ key: jwk, format: "jwk" });
    // One-shot verifies, as the check makes them (a createVerify object is a stream, dearer to set up).
    if (!verifyOneShot("sha256", message, key, signature)) throw new Error("bench floor signature");
    if (!verifyOneShot("sha256", message, leafKey, chipSignature)) throw new Error("bench floor signature");
    recoverAddressNative!(keccak256Native!(framed), parts);
  };

  const rows: Array<[string, () => Promise<number>]> = [
    ["bare P-256 verify (baseline)", () => perSecond(verifyOnce)],
    ["ethers verifyMessage", () => perSecond(() => verifyMessage(controllerText, seen.controllerProof.signature))],
    ["recovery, @noble/curves (JS)", () => perSecond(() => recoverAddressNoble(digest, parts))],
    ["recovery, libsecp256k1", () => perSecond(() => recoverAddressNative!(digest, parts))],
    ["keccak 1.1 KB, @noble/hashes", () => perSecond(() => keccak256Noble(framed))],
    ["keccak 1.1 KB, native", () => perSecond(() => keccak256Native!(framed))],
    ["checkEvidence, leaf seen", () => perSecond(() => checkEvidence(seen, context))],
    ["checkEvidence, new leaf", () => perCount(FRESH_PER_ROUND, () => checkEvidence(takeFresh(), context))],
    ...(before ? [["checkEvidence, new leaf, before", () => perCount(FRESH_PER_ROUND, before)] as [string, () => Promise<number>]] : []),
    ["new leaf's native floor", () => perSecond(nativeFloor)],
  ];
  const samples = rows.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, run]] of rows.entries()) samples[i]!.push(await run());
  }
  const medians = samples.map(median);
  const b = medians[0]!;
  console.log(`\nEvidence checks on one core, ${rounds} x ${ROUND_MS / 1000}s rounds (medians; load average ${loadAverage()})`);
  for (const [i, [name]] of rows.entries()) {
    const value = medians[i]!;
    const share = i === 0 ? "" : `   (${((100 * value) / b).toFixed(1)}% of baseline)`;
    console.log(`  ${name.padEnd(30)} ${value.toFixed(0).padStart(8)} /s${share}`);
  }
  const floor = medians[rows.length - 1]!;
  const newLeaf = medians[rows.findIndex(([name]) => name === "checkEvidence, new leaf")]!;
  console.log(`  new leaf / its native floor: ${((100 * newLeaf) / floor).toFixed(1)}% (the floor alone is ${((100 * floor) / b).toFixed(1)}% of the bare verify)`);
  const ours = 1e6 / newLeaf - 1e6 / floor;
  console.log(`  a new leaf costs ${ours.toFixed(0)} us per check beyond its native floor (the parsing and checks in JavaScript)`);
  console.log(`  goals: checkEvidence >= 2,000 /s per core; a new leaf >= 25% of the bare P-256 verify (above the floor: out of reach)`);
}

/**
 * `BENCH_EVIDENCE_BEFORE=<dir>`: another checkout's `checkEvidence` on new leaves, in the same rounds, with the trust
 * bundle loaded by that checkout's own code (the evidence itself is the same: this checkout's format).
 */
async function beforeCheckout(
  vendor: Awaited<ReturnType<typeof createDemoVendor>>,
  context: Omit<Parameters<typeof checkEvidence>[1], "trust">,
  count: number,
  evidenceFor: (chipName: string) => Promise<EvidenceFile>,
): Promise<(() => Promise<unknown>) | undefined> {
  const dir = process.env.BENCH_EVIDENCE_BEFORE;
  if (!dir) return undefined;
  const load = (file: string) => import(pathToFileURL(path.resolve(dir, "subgraphs", "verify", "evidence", file)).href);
  const [{ checkEvidence: checkBefore }, { loadTrustBundle: loadBefore }] = await Promise.all([load("check.ts"), load("trust.ts")]);
  const trust = await loadBefore(`${vendor.rootCertPem}\n${vendor.intermediateCertPem}`);
  const beforeContext = { ...context, trust };
  const evidence = await Promise.all(Array.from({ length: count }, (_, i) => evidenceFor(`before-${i}`)));
  let next = 0;
  return async () => {
    const item = evidence[next++];
    if (!item) throw new Error("bench ran out of fresh leaves (before)");
    const verdict = await checkBefore(item, beforeContext);
    if (!verdict.ok) throw new Error(`before checkout rejected the evidence: ${verdict.reason}`);
  };
}

/** The controller message the evidence's controller signed, rebuilt as the check rebuilds it. */
function controllerMessageOf(evidence: EvidenceFile): string {
  const chipSignature = fromHex(evidence.proof.chipSignature)!;
  const prehash = sha256(chipPrehashInput(evidence.transcript, evidence.chipRef));
  return controllerMessage({ transcript: evidence.transcript, chipRef: evidence.chipRef, prehash, chipSignature });
}

export function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(1)).join(" / ");
}

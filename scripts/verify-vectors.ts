/**
 * Test vectors for the chip evidence format (docs/verify-evidence.md).
 *
 *   npx tsx scripts/verify-vectors.ts           rewrite docs/verify-evidence-vectors.json and the doc's vector section
 *   npx tsx scripts/verify-vectors.ts --check   exit 1 when either is stale
 *
 * Every output is a pure function of the inputs: certificates are signed with RFC 6979 nonces (@noble/curves), the
 * chip signs the prehash with RFC 6979, and the controller uses ethers' deterministic personal_sign.
 * test/verify/evidence/evidence-vectors.test.ts recomputes the vectors so the doc cannot go stale.
 */
import "reflect-metadata";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { p256 } from "@noble/curves/nist.js";
import { Wallet } from "ethers";
import { checkEvidence } from "../subgraphs/verify/evidence/check.js";
import { fromHex, toBase64url, toHex } from "../subgraphs/verify/evidence/encoding.js";
import { chipPrehashInput, evidenceHash, p256Spki, receiptIdFor } from "../subgraphs/verify/evidence/format.js";
import { controllerMessage, finalize, normalizeChipSignature, prepare } from "../subgraphs/verify/evidence/kit.js";
import { parseEvidenceFile } from "../subgraphs/verify/evidence/parse.js";
import type { ChipChallenge } from "../subgraphs/verify/evidence/schema.js";
import { loadTrustBundle } from "../subgraphs/verify/evidence/trust.js";
import { issueCertificate, KEY_USAGE, p256PublicPoint, toPem } from "../test/verify/evidence/evidence-fixtures.js";

export interface VectorInputs {
  namespace: { didMethod: string; verifier: string };
  vendor: { profile: string; trustBundle: string };
  /** P-256 secrets (hex) of the vendor root, the vendor intermediate and the chip; secp256k1 secret of the controller. */
  keys: { root: string; intermediate: string; chip: string; controller: string };
  certificates: { rootCn: string; intermediateCn: string; chipCn: string; notBefore: string; notAfter: string; leafSerial: number };
  challenge: Omit<ChipChallenge, "didController">;
  /** Server clock for the check, ISO 8601. */
  checkedAt: string;
  /** Stand-in for the stored challenge row ID, for the receipt ID derivation. */
  challengeId: string;
}

export interface VectorOutputs {
  trustBundlePem: string;
  didController: string;
  leafDerBase64url: string;
  certificateFingerprintSha256: string;
  publicKey: string;
  chipRef: string;
  prehashInput: string;
  prehash: string;
  chipSignature: string;
  controllerMessage: string;
  controllerSignature: string;
  evidenceFile: string;
  evidenceHash: string;
  receiptId: string;
  /** The reference implementation's verdict at `checkedAt`. */
  accepted: boolean;
}

export interface Vectors {
  inputs: VectorInputs;
  outputs: VectorOutputs;
}

export const VECTOR_INPUTS: VectorInputs = {
  namespace: { didMethod: "service", verifier: "service.verify" },
  vendor: { profile: "vendor-chip-ca306/1", trustBundle: "vendor-chip-ca306-roots/1" },
  keys: {
    root: "0x" + "01".repeat(32),
    intermediate: "0x" + "02".repeat(32),
    chip: "0x" + "03".repeat(32),
    controller: "0x" + "04".repeat(32),
  },
  certificates: {
    rootCn: "Vendor Chip Root CA",
    intermediateCn: "Vendor Chip CA306",
    chipCn: "chip 0001",
    notBefore: "2026-01-01T00:00:00Z",
    notAfter: "2046-01-01T00:00:00Z",
    leafSerial: 4096,
  },
  challenge: {
    chainId: "3338",
    expiresAt: "1780272300",
    machineDid: "did:service:42",
    machineId: "42",
    nonce: "0x" + "5a".repeat(32),
    profile: "vendor-chip-ca306/1",
    protocol: "service.verify.chip-proof/1",
    verifier: "service.verify",
  },
  checkedAt: "2026-06-01T00:00:00Z",
  challengeId: "00000000-0000-4000-8000-000000000001",
};

export async function computeVectors(inputs: VectorInputs): Promise<Vectors> {
  const secret = (hex: string) => fromHex(hex)!;
  const { certificates: c } = inputs;
  const validity = { notBefore: new Date(c.notBefore), notAfter: new Date(c.notAfter) };
  const caUsage = KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign;
  const spkiOf = (hex: string) => p256Spki(p256PublicPoint(secret(hex)));
  const rootDer = issueCertificate({
    subjectCn: c.rootCn, issuerCn: c.rootCn, subjectSpki: spkiOf(inputs.keys.root), issuerSecret: secret(inputs.keys.root),
    serial: 1, ca: true, keyUsage: caUsage, ...validity,
  });
  const intermediateDer = issueCertificate({
    subjectCn: c.intermediateCn, issuerCn: c.rootCn, subjectSpki: spkiOf(inputs.keys.intermediate),
    issuerSecret: secret(inputs.keys.root), serial: 2, ca: true, keyUsage: caUsage, ...validity,
  });
  const leafDer = issueCertificate({
    subjectCn: c.chipCn, issuerCn: c.intermediateCn, subjectSpki: spkiOf(inputs.keys.chip),
    issuerSecret: secret(inputs.keys.intermediate), serial: c.leafSerial, ca: false, keyUsage: KEY_USAGE.digitalSignature, ...validity,
  });

  const controller = new Wallet(inputs.keys.controller);
  const challenge: ChipChallenge = { ...inputs.challenge, didController: controller.address };
  const prepared = prepare(challenge, leafDer);
  const chipSignature = normalizeChipSignature(prepared, p256.sign(prepared.prehash, secret(inputs.keys.chip), { prehash: false }));
  const message = controllerMessage(prepared, chipSignature);
  const controllerSignature = controller.signMessageSync(message);
  const evidenceFile = finalize(prepared, chipSignature, controllerSignature);

  const trustBundlePem = toPem(rootDer) + toPem(intermediateDer);
  const parsed = parseEvidenceFile(new TextEncoder().encode(evidenceFile));
  const verdict = parsed.ok
    ? await checkEvidence(parsed.evidence, {
        challenge,
        machine: { machineId: challenge.machineId, machineDid: challenge.machineDid, effectiveController: controller.address, chainId: challenge.chainId },
        trust: await loadTrustBundle(trustBundlePem),
        now: new Date(inputs.checkedAt),
        namespace: inputs.namespace,
        vendor: inputs.vendor,
      })
    : { ok: false };
  const hash = evidenceHash(new TextEncoder().encode(evidenceFile));
  return {
    inputs,
    outputs: {
      trustBundlePem,
      didController: controller.address,
      leafDerBase64url: toBase64url(leafDer),
      certificateFingerprintSha256: prepared.transcript.certificateFingerprintSha256,
      publicKey: toHex(prepared.publicKey),
      chipRef: prepared.chipRef,
      prehashInput: new TextDecoder().decode(chipPrehashInput(prepared.transcript, prepared.chipRef)),
      prehash: toHex(prepared.prehash),
      chipSignature: toHex(chipSignature),
      controllerMessage: message,
      controllerSignature,
      evidenceFile,
      evidenceHash: hash,
      receiptId: receiptIdFor(challenge.protocol, inputs.challengeId, hash),
      accepted: verdict.ok,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Files

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const VECTORS_JSON = path.join(root, "docs/verify-evidence-vectors.json");
export const EVIDENCE_DOC = path.join(root, "docs/verify-evidence.md");
const BEGIN = "<!-- vectors:begin (generated by scripts/verify-vectors.ts; do not edit) -->";
const END = "<!-- vectors:end -->";

export function vectorsJson(vectors: Vectors): string {
  return JSON.stringify(vectors, null, 2) + "\n";
}

/** The doc's vector section: the values a reader needs, each in a code block so nothing is re-wrapped. */
export function vectorsMarkdown({ inputs, outputs: o }: Vectors): string {
  const block = (label: string, text: string, lang = "") => `${label}\n\n\`\`\`${lang}\n${text}\n\`\`\`\n`;
  return [
    BEGIN,
    block("Inputs (keys are test-only):", JSON.stringify(inputs, null, 2), "json"),
    block("Vendor trust bundle (root, then intermediate):", o.trustBundlePem.trimEnd()),
    block(
      "Derived values:",
      [
        `didController                = ${o.didController}`,
        `certificateFingerprintSha256 = ${o.certificateFingerprintSha256}`,
        `publicKey                    = ${o.publicKey}`,
        `chipRef                      = ${o.chipRef}`,
        `prehash                      = ${o.prehash}`,
        `chipSignature                = ${o.chipSignature}`,
        `controllerSignature          = ${o.controllerSignature}`,
        `evidenceHash                 = ${o.evidenceHash}`,
        `receiptId                    = ${o.receiptId}`,
        `accepted at checkedAt        = ${o.accepted}`,
      ].join("\n"),
    ),
    block("Prehash input (UTF-8, hashed once with SHA-256 to give `prehash`):", o.prehashInput, "json"),
    block("Controller message (EIP-191 personal message, `\\n` line ends, no trailing newline):", o.controllerMessage),
    block("Evidence file (the exact bytes, one line):", o.evidenceFile, "json"),
    END,
  ].join("\n");
}

export function replaceVectorSection(doc: string, section: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error("docs/verify-evidence.md has no vector markers");
  return doc.slice(0, start) + section + doc.slice(end + END.length);
}

async function main(check: boolean): Promise<void> {
  const vectors = await computeVectors(VECTOR_INPUTS);
  if (!vectors.outputs.accepted) throw new Error("the reference evidence does not pass its own checks");
  const json = vectorsJson(vectors);
  const doc = replaceVectorSection(readFileSync(EVIDENCE_DOC, "utf8"), vectorsMarkdown(vectors));
  if (check) {
    const stale = readFileSync(VECTORS_JSON, "utf8") !== json || readFileSync(EVIDENCE_DOC, "utf8") !== doc;
    console.log(stale ? "vectors are stale: run npx tsx scripts/verify-vectors.ts" : "vectors are current");
    process.exitCode = stale ? 1 : 0;
    return;
  }
  writeFileSync(VECTORS_JSON, json);
  writeFileSync(EVIDENCE_DOC, doc);
  console.log(`wrote ${path.relative(root, VECTORS_JSON)} and the vector section of ${path.relative(root, EVIDENCE_DOC)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.includes("--check"));
}

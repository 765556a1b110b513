/**
 * Every evidence check, each failing alone: the evidence is otherwise consistent (re-signed where the altered value
 * is signed), so the asserted reason is the one check under test.
 */
import canonicalize from "canonicalize";
import { p256 } from "@noble/curves/nist.js";
import { Wallet } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";
import { checkEvidence, type EvidenceCheckContext } from "../../../subgraphs/verify/evidence/check.js";
import { fromHex, sha256, toHex, utf8 } from "../../../subgraphs/verify/evidence/encoding.js";
import { chipPrehash, chipRef, encodeChipSignature } from "../../../subgraphs/verify/evidence/format.js";
import { controllerMessage, finalize, prepare } from "../../../subgraphs/verify/evidence/kit.js";
import type { ChipChallenge, EvidenceFile } from "../../../subgraphs/verify/evidence/schema.js";
import { makeController, makeVendor, makeWorld, TEST_NOW, type TestChip } from "./evidence-fixtures.js";

const P256_N = p256.Point.CURVE().n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

type World = Awaited<ReturnType<typeof makeWorld>>;
let world: World;
beforeAll(async () => {
  world = await makeWorld();
});

interface ForgeOptions {
  challenge?: ChipChallenge;
  leaf?: TestChip;
  controller?: Wallet;
  /** Edit the prepared transcript / chipRef before the chip signs. */
  tamper?: (p: ReturnType<typeof prepare>) => void;
  /** Produce the chip signature bytes (default: correct signature, minimal DER INTEGER pair). */
  chipSignature?: (prehash: Uint8Array, leaf: TestChip) => Uint8Array;
  /** Edit the finished file (members outside the signed data, or the controller signature itself). */
  after?: (e: EvidenceFile) => void;
}

/** Build evidence like the kit does, with one deliberate flaw. */
function forge(options: ForgeOptions = {}): EvidenceFile {
  const leaf = options.leaf ?? world.chip;
  const prepared = prepare(options.challenge ?? world.challenge, leaf.pem);
  if (options.tamper) {
    options.tamper(prepared);
    prepared.prehash = chipPrehash(prepared.transcript, prepared.chipRef);
  }
  const signChip = options.chipSignature ?? ((prehash, chip) => derPair(p256.sign(prehash, chip.secret, { prehash: false })));
  const chipSignature = signChip(prepared.prehash, leaf);
  const controller = options.controller ?? world.controller;
  // finalize insists on the challenge's controller; a forged signer is swapped in afterwards.
  const honest = world.controller.signMessageSync(controllerMessage(prepared, chipSignature));
  const evidence = JSON.parse(finalize(prepared, chipSignature, honest)) as EvidenceFile;
  evidence.controllerProof.signature = controller.signMessageSync(controllerMessage(prepared, chipSignature));
  options.after?.(evidence);
  return evidence;
}

function derPair(compact: Uint8Array): Uint8Array {
  return encodeChipSignature({ r: BigInt(toHex(compact.subarray(0, 32))), s: BigInt(toHex(compact.subarray(32))) });
}

async function reasonOf(evidence: EvidenceFile, ctx: Partial<EvidenceCheckContext> = {}): Promise<string> {
  const result = await checkEvidence(evidence, world.context(ctx));
  return result.ok ? "accepted" : result.reason;
}

describe("checkEvidence accepts", () => {
  it("the kit's evidence, returning chipRef and the hash of the canonical bytes", async () => {
    const evidence = JSON.parse(world.evidenceText) as EvidenceFile;
    const result = await checkEvidence(evidence, world.context());
    expect(result).toEqual({
      ok: true,
      chipRef: chipRef(world.challenge.protocol, p256.getPublicKey(world.chip.secret, false)),
      evidenceHash: toHex(sha256(utf8(world.evidenceText))),
    });
  });

  it("a chip signature with high s (chips do not normalise)", async () => {
    const highS = (prehash: Uint8Array, chip: TestChip) => {
      const sig = p256.Signature.fromBytes(p256.sign(prehash, chip.secret, { prehash: false }));
      const s = sig.s > P256_N / 2n ? sig.s : P256_N - sig.s;
      return encodeChipSignature({ r: sig.r, s });
    };
    expect(await reasonOf(forge({ chipSignature: highS }))).toBe("accepted");
  });

  it("an effective controller reported in another letter case (addresses compare as bytes)", async () => {
    const machine = { ...world.context().machine, effectiveController: world.challenge.didController.toLowerCase() };
    expect(await reasonOf(forge(), { machine })).toBe("accepted");
  });
});

describe("checkEvidence rejects", () => {
  it.each([
    ["evidenceSchema", (e: EvidenceFile) => (e.evidenceSchema = "service.verify.chip-evidence/2")],
    ["profile", (e: EvidenceFile) => (e.profile = "other-chip/1")],
    ["trustBundle", (e: EvidenceFile) => (e.trustBundle = "vendor-chip-ca306/1")],
    ["revocationStatus", (e: EvidenceFile) => (e.revocationStatus = "good")],
    ["controllerProof.scheme", (e: EvidenceFile) => (e.controllerProof.scheme = "eip712-secp256k1")],
  ])("a wrong fixed value in %s", async (member, edit) => {
    expect(await reasonOf(forge({ after: edit }))).toBe(`fixed value: ${member}`);
  });

  it.each([
    ["profile", "other-chip/1"],
    ["protocol", "service.verify.chip-proof/2"],
    ["verifier", "other.verify"],
  ] as const)("a wrong fixed value in transcript.%s, even when the challenge carries it", async (field, value) => {
    const challenge = { ...world.challenge, [field]: value };
    // The kit derives the root identifiers from the challenge; put the configured ones back so only the transcript is off.
    const configured = JSON.parse(world.evidenceText) as EvidenceFile;
    const after = (e: EvidenceFile) => {
      e.evidenceSchema = configured.evidenceSchema;
      e.profile = configured.profile;
      e.trustBundle = configured.trustBundle;
    };
    expect(await reasonOf(forge({ challenge, after }), { challenge })).toBe(`fixed value: transcript.${field}`);
  });

  it.each([
    ["chainId", "1"],
    ["didController", "0x" + "11".repeat(20)],
    ["expiresAt", String(TEST_NOW.getTime() / 1000 + 301)],
    ["machineDid", "did:service:43"],
    ["machineId", "43"],
    ["nonce", "0x" + "22".repeat(32)],
  ] as const)("a transcript whose %s differs from the challenge", async (field, value) => {
    const signedFor = { ...world.challenge, [field]: value };
    const controller = field === "didController" ? world.controller : undefined;
    const evidence = forge({
      challenge: { ...signedFor, didController: world.challenge.didController },
      controller,
      tamper: field === "didController" ? (p) => (p.transcript.didController = value) : undefined,
    });
    expect(await reasonOf(evidence)).toBe(`transcript: ${field} differs from the challenge`);
  });

  it("a challenge past its expiry", async () => {
    const now = new Date(Number(world.challenge.expiresAt) * 1000);
    expect(await reasonOf(forge(), { now })).toBe("challenge: expired");
  });

  it("a DID controller changed since the challenge", async () => {
    const machine = { ...world.context().machine, effectiveController: makeController("new owner").address };
    expect(await reasonOf(forge(), { machine })).toBe("machine: DID controller changed");
  });

  it.each([
    ["machineId", "43", "machine: ID differs"],
    ["machineDid", "did:service:43", "machine: DID differs"],
    ["chainId", "9990", "machine: chain ID differs"],
  ] as const)("a machine context whose %s changed", async (field, value, reason) => {
    const machine = { ...world.context().machine, [field]: value };
    expect(await reasonOf(forge(), { machine })).toBe(reason);
  });

  it("a machine DID not derived from the configured DID method", async () => {
    const challenge = { ...world.challenge, machineDid: "did:other:42" };
    const ctx = { challenge, machine: { ...world.context().machine, machineDid: "did:other:42" } };
    expect(await reasonOf(forge({ challenge }), ctx)).toBe("machine: DID not derived");
  });

  it("a certificate fingerprint that does not match the leaf", async () => {
    const evidence = forge({ after: (e) => (e.certificate.fingerprintSha256 = "0x" + "33".repeat(32)) });
    expect(await reasonOf(evidence)).toBe("certificate: fingerprint mismatch");
  });

  it("a transcript fingerprint that does not match the leaf (signed as such)", async () => {
    const real = forge().certificate.fingerprintSha256;
    const evidence = forge({
      tamper: (p) => (p.transcript.certificateFingerprintSha256 = "0x" + "44".repeat(32)),
      after: (e) => (e.certificate.fingerprintSha256 = real),
    });
    expect(await reasonOf(evidence)).toBe("transcript: certificate fingerprint mismatch");
  });

  it("a consistent, correctly signed leaf of another vendor", async () => {
    const leaf = makeVendor("foreign").issueChip("intruder");
    expect(await reasonOf(forge({ leaf }))).toMatch(/^chain: /);
  });

  it("an expired leaf", async () => {
    const leaf = world.vendor.issueChip("expired", { notBefore: new Date("2025-01-01Z"), notAfter: new Date("2026-02-01Z") });
    expect(await reasonOf(forge({ leaf }))).toMatch(/^chain: .*expired/);
  });

  it("a publicKey member that is not the leaf's key", async () => {
    const other = toHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    expect(await reasonOf(forge({ after: (e) => (e.certificate.publicKey = other) }))).toBe("certificate: publicKey mismatch");
  });

  it("a chipRef not derived from the leaf key (signed as such)", async () => {
    const evidence = forge({ tamper: (p) => (p.chipRef = "0x" + "55".repeat(32)) });
    expect(await reasonOf(evidence)).toBe("chipRef mismatch");
  });

  it.each([
    ["a needless leading zero", (r: bigint, s: bigint) => {
      const pair = encodeChipSignature({ r, s });
      return new Uint8Array([0x02, pair[1] + 1, 0x00, ...pair.subarray(2)]);
    }],
    ["raw r||s", (r: bigint, s: bigint) => new Uint8Array([...fixed(r), ...fixed(s)])],
    ["a DER SEQUENCE header", (r: bigint, s: bigint) => { const pair = encodeChipSignature({ r, s }); return new Uint8Array([0x30, pair.length, ...pair]); }],
    ["s = 0", (r: bigint) => encodeChipSignature({ r, s: 0n })],
    ["r >= n", (_r: bigint, s: bigint) => encodeChipSignature({ r: P256_N, s })],
    ["trailing bytes", (r: bigint, s: bigint) => new Uint8Array([...encodeChipSignature({ r, s }), 0])],
  ])("a chip signature with %s", async (_label, encode) => {
    const chipSignature = (prehash: Uint8Array, chip: TestChip) => {
      const sig = p256.Signature.fromBytes(p256.sign(prehash, chip.secret, { prehash: false }));
      return encode(sig.r, sig.s);
    };
    expect(await reasonOf(forge({ chipSignature }))).toBe("chip signature: not two minimal DER INTEGERs in range");
  });

  it.each([
    ["over another prehash", (_p: Uint8Array, chip: TestChip) => derPair(p256.sign(sha256(utf8("other")), chip.secret, { prehash: false }))],
    ["by another key", (p: Uint8Array) => derPair(p256.sign(p, p256.utils.randomSecretKey(), { prehash: false }))],
    ["over SHA-256 of the prehash (hashed twice)", (p: Uint8Array, chip: TestChip) => derPair(p256.sign(p, chip.secret))],
  ])("a chip signature %s", async (_label, chipSignature) => {
    expect(await reasonOf(forge({ chipSignature }))).toBe("chip signature: invalid");
  });

  it("a controller signature by someone other than the DID controller", async () => {
    const evidence = forge({ controller: makeController("stranger") });
    expect(await reasonOf(evidence)).toBe("controller signature: does not recover to the DID controller");
  });

  it("a controller signature over another chip signature", async () => {
    const a = forge();
    const b = forge({ chipSignature: (p, chip) => derPair(p256.sign(p, chip.secret, { prehash: false, extraEntropy: true })) });
    a.controllerProof.signature = b.controllerProof.signature;
    expect(await reasonOf(a)).toBe("controller signature: does not recover to the DID controller");
  });

  it.each([
    ["v = 0/1", (sig: Uint8Array) => { sig[64] -= 27; }],
    ["v = 29", (sig: Uint8Array) => { sig[64] = 29; }],
    ["r = 0", (sig: Uint8Array) => { sig.fill(0, 0, 32); }],
    ["high s with the flipped recovery bit (same key, valid math)", (sig: Uint8Array) => {
      const s = BigInt(toHex(sig.subarray(32, 64)));
      sig.set(fixed(SECP256K1_N - s), 32);
      sig[64] = sig[64] === 27 ? 28 : 27;
    }],
  ])("a controller signature with %s", async (_label, edit) => {
    const evidence = forge({
      after: (e) => {
        const sig = fromHex(e.controllerProof.signature)!;
        edit(sig);
        e.controllerProof.signature = toHex(sig);
      },
    });
    expect(await reasonOf(evidence)).toBe("controller signature: not r||s||v with v 27/28 and low s");
  });

  it("the flipped recovery bit alone", async () => {
    const evidence = forge({
      after: (e) => {
        const sig = fromHex(e.controllerProof.signature)!;
        sig[64] = sig[64] === 27 ? 28 : 27;
        e.controllerProof.signature = toHex(sig);
      },
    });
    expect(await reasonOf(evidence)).toBe("controller signature: does not recover to the DID controller");
  });

  it("without throwing, whatever the input", async () => {
    const garbage = forge({ after: (e) => (e.certificate.leafDerBase64url = "AAAA") });
    garbage.certificate.fingerprintSha256 = garbage.transcript.certificateFingerprintSha256 = toHex(sha256(new Uint8Array(3)));
    expect(await reasonOf(garbage)).toBe("leaf: not a DER certificate");
    const broken = { ...forge(), proof: undefined } as unknown as EvidenceFile;
    expect(await reasonOf(broken)).toMatch(/^unexpected: /);
    expect(canonicalize(forge())).toBe(canonicalize(forge()));
  });
});

function fixed(value: bigint): Uint8Array {
  return new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));
}

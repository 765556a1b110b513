import canonicalize from "canonicalize";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { beforeAll, describe, expect, it } from "vitest";
import { checkEvidence } from "../../../subgraphs/verify/evidence/check.js";
import { toHex } from "../../../subgraphs/verify/evidence/encoding.js";
import { eip191Digest } from "../../../subgraphs/verify/evidence/format.js";
import {
  buildEvidence,
  buildEvidenceWithSigners,
  controllerMessage,
  EvidenceKitError,
  finalize,
  normalizeChipSignature,
  prepare,
} from "../../../subgraphs/verify/evidence/kit.js";
import { parseEvidenceFile } from "../../../subgraphs/verify/evidence/parse.js";
import { makeController, makeWorld } from "./evidence-fixtures.js";

type World = Awaited<ReturnType<typeof makeWorld>>;
let world: World;
beforeAll(async () => {
  world = await makeWorld();
});

const derSequence = (compact: Uint8Array) => p256.Signature.fromBytes(compact).toBytes("der");

describe("client kit", () => {
  it("builds a canonical evidence file that passes every check", async () => {
    const parsed = parseEvidenceFile(new TextEncoder().encode(world.evidenceText));
    expect(parsed.ok).toBe(true);
    expect(canonicalize(JSON.parse(world.evidenceText))).toBe(world.evidenceText);
    const result = parsed.ok && (await checkEvidence(parsed.evidence, world.context()));
    expect(result && result.ok).toBe(true);
  });

  it("is deterministic for fixed keys (RFC 6979 on both curves)", () => {
    const again = buildEvidence({
      challenge: world.challenge,
      leafCertPem: world.chip.pem,
      chipPrivateKeyPem: world.chip.privateKeyPem,
      controllerPrivateKey: world.controller.privateKey,
    });
    expect(again).toBe(world.evidenceText);
  });

  it.each([
    ["raw r||s", (c: Uint8Array) => c],
    ["a DER SEQUENCE", derSequence],
    ["bare DER INTEGERs", (c: Uint8Array) => derSequence(c).subarray(2)],
  ])("takes a chip signer that returns %s, and a wallet-style controller signer", async (_label, shape) => {
    const text = await buildEvidenceWithSigners({
      challenge: world.challenge,
      leafCertificate: world.chip.der,
      signChip: async (prehash) => shape(p256.sign(prehash, world.chip.secret, { prehash: false, lowS: false })),
      signController: (message) => world.controller.signMessage(message),
    });
    expect(text).toBe(world.evidenceText);
  });

  it("refuses a chip signature that does not verify over the prehash", () => {
    const prepared = prepare(world.challenge, world.chip.pem);
    const hashedAgain = p256.sign(prepared.prehash, world.chip.secret); // a chip that hashes the prehash again
    expect(() => normalizeChipSignature(prepared, hashedAgain)).toThrow(EvidenceKitError);
    expect(() => normalizeChipSignature(prepared, new Uint8Array(10))).toThrow(EvidenceKitError);
  });

  it("refuses controller signatures the server would reject", () => {
    const prepared = prepare(world.challenge, world.chip.pem);
    const chipSignature = normalizeChipSignature(prepared, p256.sign(prepared.prehash, world.chip.secret, { prehash: false }));
    const message = controllerMessage(prepared, chipSignature);
    const good = world.controller.signMessageSync(message);
    expect(() => finalize(prepared, chipSignature, good)).not.toThrow();

    const recovered = secp256k1.sign(eip191Digest(message), Buffer.from(world.controller.privateKey.slice(2), "hex"), {
      prehash: false,
      format: "recovered",
    });
    const vZeroOne = toHex(new Uint8Array([...recovered.subarray(1), recovered[0]]));
    expect(() => finalize(prepared, chipSignature, vZeroOne)).toThrow(/v 27\/28/);
    const stranger = makeController("stranger").signMessageSync(message);
    expect(() => finalize(prepared, chipSignature, stranger)).toThrow(/not from the challenge's DID controller/);
  });

  it("refuses a malformed challenge or an unusable leaf", () => {
    expect(() => prepare({ ...world.challenge, nonce: "0x1234" }, world.chip.pem)).toThrow(EvidenceKitError);
    expect(() => prepare(world.challenge, world.vendor.issueChip("p384", { curve: "P-384" }).pem)).toThrow(/P-256/);
    expect(() => prepare(world.challenge, new Uint8Array(1301))).toThrow(/1\.\.1300/);
    expect(() => prepare(world.challenge, "no pem here")).toThrow(EvidenceKitError);
  });
});

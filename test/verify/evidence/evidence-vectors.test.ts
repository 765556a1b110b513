/**
 * The published test vectors: recomputed from their documented inputs, compared with the JSON file and the doc, and
 * cross-checked with independent implementations (node:crypto, ethers) so the vectors do not merely agree with
 * themselves.
 */
import { createHash, verify, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import { verifyMessage } from "ethers";
import { describe, expect, it } from "vitest";
import {
  computeVectors,
  EVIDENCE_DOC,
  replaceVectorSection,
  VECTOR_INPUTS,
  VECTORS_JSON,
  vectorsMarkdown,
  type Vectors,
} from "../../../scripts/verify-vectors.js";

const published = JSON.parse(readFileSync(VECTORS_JSON, "utf8")) as Vectors;
const sha256Hex = (data: Buffer | string) => "0x" + createHash("sha256").update(data).digest("hex");

describe("evidence test vectors", () => {
  it("are what the code computes from the documented inputs", async () => {
    expect(published.inputs).toEqual(VECTOR_INPUTS);
    expect(await computeVectors(published.inputs)).toEqual(published);
    expect(published.outputs.accepted).toBe(true);
  });

  it("appear verbatim in docs/verify-evidence.md", () => {
    const doc = readFileSync(EVIDENCE_DOC, "utf8");
    expect(replaceVectorSection(doc, vectorsMarkdown(published))).toBe(doc);
  });

  it("agree with independent implementations", () => {
    const o = published.outputs;
    const evidence = JSON.parse(o.evidenceFile);
    const leafDer = Buffer.from(o.leafDerBase64url, "base64url");

    expect(canonicalize(evidence)).toBe(o.evidenceFile);
    expect(sha256Hex(leafDer)).toBe(o.certificateFingerprintSha256);
    expect(sha256Hex(o.evidenceFile)).toBe(o.evidenceHash);
    expect(sha256Hex(o.prehashInput)).toBe(o.prehash);
    expect(o.receiptId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // OpenSSL reads the key from the certificate itself; chipRef hashes that SPKI under its domain tag.
    const leafKey = new X509Certificate(leafDer).publicKey;
    const spki = leafKey.export({ format: "der", type: "spki" });
    const jwk = leafKey.export({ format: "jwk" });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
    expect("0x" + point.toString("hex")).toBe(o.publicKey);
    const tag = Buffer.from(`${published.inputs.challenge.protocol}:chip-ref\0`);
    expect(sha256Hex(Buffer.concat([tag, spki]))).toBe(o.chipRef);

    // The chip signature is ECDSA-with-SHA-256 over the prehash input, i.e. ECDSA over the prehash without rehashing.
    const chipSig = Buffer.from(o.chipSignature.slice(2), "hex");
    const der = Buffer.concat([Buffer.from([0x30, chipSig.length]), chipSig]);
    expect(verify("sha256", Buffer.from(o.prehashInput), leafKey, der)).toBe(true);

    expect(verifyMessage(o.controllerMessage, o.controllerSignature)).toBe(o.didController);
    expect(o.controllerMessage).toContain(`Chip Signature: ${o.chipSignature}`);
    expect(o.controllerMessage).toContain(`Chip Prehash: ${o.prehash}`);
  });
});

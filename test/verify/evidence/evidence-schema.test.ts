import canonicalize from "canonicalize";
import { beforeAll, describe, expect, it } from "vitest";
import { parseEvidenceFile } from "../../../subgraphs/verify/evidence/parse.js";
import { validateEvidenceShape, type EvidenceFile } from "../../../subgraphs/verify/evidence/schema.js";
import { makeWorld } from "./evidence-fixtures.js";

let valid: EvidenceFile;
beforeAll(async () => {
  valid = JSON.parse((await makeWorld()).evidenceText);
});

type Edit = (e: Record<string, any>) => void;
const shapeOf = (edit: Edit) => {
  const copy = structuredClone(valid) as Record<string, any>;
  edit(copy);
  return validateEvidenceShape(copy);
};

const OBJECT_MEMBERS = ["certificate", "controllerProof", "proof", "transcript"];
const MEMBER_PATHS = [
  "certificate",
  "certificate.fingerprintSha256",
  "certificate.leafDerBase64url",
  "certificate.publicKey",
  "chipRef",
  "controllerProof",
  "controllerProof.scheme",
  "controllerProof.signature",
  "evidenceSchema",
  "profile",
  "proof",
  "proof.chipSignature",
  "revocationStatus",
  "transcript",
  ...[
    "certificateFingerprintSha256",
    "chainId",
    "didController",
    "expiresAt",
    "machineDid",
    "machineId",
    "nonce",
    "profile",
    "protocol",
    "verifier",
  ].map((m) => `transcript.${m}`),
  "trustBundle",
];

function at(root: Record<string, any>, path: string): [Record<string, any>, string] {
  const parts = path.split(".");
  const holder = parts.slice(0, -1).reduce((o, p) => o[p], root);
  return [holder, parts[parts.length - 1]];
}

describe("validateEvidenceShape", () => {
  it("accepts the kit's evidence", () => {
    expect(validateEvidenceShape(valid)).toEqual({ ok: true, evidence: valid });
  });

  it.each(MEMBER_PATHS)("rejects a missing %s", (path) => {
    expect(shapeOf((e) => { const [h, k] = at(e, path); delete h[k]; }).ok).toBe(false);
  });

  it.each(MEMBER_PATHS)("rejects %s = null", (path) => {
    expect(shapeOf((e) => { const [h, k] = at(e, path); h[k] = null; }).ok).toBe(false);
  });

  // A string is the right type for scalar members, so "x" is a wrong type only for the object members: the pairs
  // are filtered before the cases are generated, so that every generated case asserts.
  const WRONG_TYPES = MEMBER_PATHS.flatMap((path) =>
    [1, true, [], ["x"], {}, "x"]
      .filter((value) => OBJECT_MEMBERS.includes(path) || typeof value !== "string")
      .map((value) => [path, value] as const),
  );
  it("generates a wrong-type case for every member, and \"x\" only for the object members", () => {
    expect(WRONG_TYPES).toHaveLength(MEMBER_PATHS.length * 5 + OBJECT_MEMBERS.length);
  });

  it.each(WRONG_TYPES)("rejects %s with a value of the wrong type (%j)", (path, value) => {
    expect(shapeOf((e) => { const [h, k] = at(e, path); h[k] = value; }).ok).toBe(false);
  });

  it.each(["", "certificate", "controllerProof", "proof", "transcript"])("rejects an extra member in %s", (path) => {
    for (const name of ["extra", "__proto__", "toString", "Nonce"]) {
      const result = shapeOf((e) => {
        const holder = path ? e[path] : e;
        Object.defineProperty(holder, name, { value: "x", enumerable: true, configurable: true, writable: true });
      });
      expect(result.ok, `${path}.${name}`).toBe(false);
    }
  });

  it.each([null, [], "x", 1, true])("rejects a root that is %j", (root) => {
    expect(validateEvidenceShape(root).ok).toBe(false);
  });

  const hex64 = "0x" + "ab".repeat(32);
  const lexical: [string, string[], string[]][] = [
    // [path, lexically valid values, lexically invalid values]
    ["transcript.nonce", [hex64], [hex64.toUpperCase().replace("0X", "0x"), hex64.slice(2), hex64 + "00", "0x" + "ab".repeat(31), ""]],
    ["chipRef", [hex64], ["0X" + hex64.slice(2), hex64.slice(0, -1)]],
    ["certificate.fingerprintSha256", [hex64], ["sha256:" + hex64.slice(2)]],
    ["transcript.certificateFingerprintSha256", [hex64], [hex64 + " "]],
    ["certificate.publicKey", ["0x04" + "cd".repeat(64)], ["0x02" + "cd".repeat(32), "0x04" + "CD".repeat(64), "0x04" + "cd".repeat(63)]],
    ["certificate.leafDerBase64url", ["AA", "AAA", "AAAA", "A-_A"], ["", "A", "AA==", "AB", "A+/A", "A".repeat(1736)]],
    ["proof.chipSignature", ["0x00", "0x" + "11".repeat(80)], ["0x", "0x0", "0x" + "11".repeat(81), "0x" + "AA".repeat(70), "11"]],
    ["controllerProof.signature", ["0x" + "11".repeat(65)], ["0x" + "11".repeat(64), "0x" + "11".repeat(66), "0x" + "AA".repeat(65)]],
    ["transcript.machineId", ["1", "42", ((1n << 256n) - 1n).toString()], ["0", "01", "-1", "+1", " 1", "1.0", (1n << 256n).toString(), "0x2a"]],
    ["transcript.chainId", ["1", "3338"], ["0", "03338", "0xd0a", ""]],
    ["transcript.expiresAt", ["0", "1767225900"], ["01", "-1", "1.5", "1".repeat(17), ""]],
    ["transcript.didController", ["0x" + "a".repeat(40), "0x" + "A".repeat(40)], ["0x" + "a".repeat(39), "a".repeat(40), "0x" + "g".repeat(40)]],
    ["transcript.machineDid", ["did:service:42", "did:x:0xabc"], ["DID:service:42", "did::42", "did:service:", "did:service:4 2", "did:service:42\n"]],
    ["evidenceSchema", ["anything/9"], ["", "with space", "tab\t", "caf\u00e9", "x".repeat(129)]],
    ["controllerProof.scheme", ["eip191-secp256k1"], ["eip191 secp256k1", ""]],
  ];
  it.each(lexical)("applies the lexical form of %s", (path, good, bad) => {
    for (const value of good) {
      expect(shapeOf((e) => { const [h, k] = at(e, path); h[k] = value; }).ok, `${path}=${value}`).toBe(true);
    }
    for (const value of bad) {
      expect(shapeOf((e) => { const [h, k] = at(e, path); h[k] = value; }).ok, `${path}=${JSON.stringify(value)}`).toBe(false);
    }
  });

  it("leaves wrong values with a valid lexical form to the checks", () => {
    expect(shapeOf((e) => (e.evidenceSchema = "other.schema/1")).ok).toBe(true);
    expect(shapeOf((e) => (e.transcript.machineId = "43")).ok).toBe(true);
    expect(shapeOf((e) => (e.controllerProof.signature = "0x" + "00".repeat(65))).ok).toBe(true);
  });
});

describe("parseEvidenceFile", () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it("accepts the canonical bytes and hashes them", () => {
    const text = canonicalize(valid)!;
    const result = parseEvidenceFile(encode(text));
    expect(result.ok && result.evidenceHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("rejects a body over 16,384 bytes before parsing", () => {
    const result = parseEvidenceFile(new Uint8Array(16_385).fill(0x20));
    expect(result).toEqual({ ok: false, reason: "body: over 16384 bytes" });
  });

  it("rejects non-canonical bytes and wrong shapes without throwing", () => {
    expect(parseEvidenceFile(encode(JSON.stringify(valid, null, 2))).ok).toBe(false);
    expect(parseEvidenceFile(encode(canonicalize({ ...valid, extra: "x" })!)).ok).toBe(false);
    expect(parseEvidenceFile(encode("[]")).ok).toBe(false);
  });
});

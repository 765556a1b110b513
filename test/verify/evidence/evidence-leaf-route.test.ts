/**
 * Differential test of the new-leaf fast path (leaf-der.ts, leaf-route.ts) against pkijs: for every leaf and check
 * time, `validateChain` (fast path first) gives exactly what pkijs alone gives (outcome, reason, key), and whenever
 * the fast path accepts, pkijs accepts with the same key and validity window. The valid chip shapes must take the
 * fast path; everything else may fall back to pkijs.
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { p256 } from "@noble/curves/nist.js";
import { describe, expect, it } from "vitest";
import { createDemoVendor } from "../../../subgraphs/shared/crypto/vendor-ca.js";
import { p256Spki } from "../../../subgraphs/verify/evidence/format.js";
import { validateLeafFast } from "../../../subgraphs/verify/evidence/leaf-route.js";
import { loadTrustBundle, validateChain, validateChainWithPkijs, type TrustBundle } from "../../../subgraphs/verify/evidence/trust.js";
import { deriveSecret, makeVendor, p256PublicPoint, TEST_NOW, toPem } from "./evidence-fixtures.js";

const CN = "2.5.4.3";
const O = "2.5.4.10";
type Attribute = [type: string, value: pkijs.AttributeValueType];

/** A name of one RDN per inner array, encoded as given (pkijs would put every attribute into one SET). */
function dn(...sets: Attribute[][]): pkijs.RelativeDistinguishedNames {
  const typesAndValues = sets.flat().map(([type, value]) => new pkijs.AttributeTypeAndValue({ type, value }));
  const der = new asn1js.Sequence({
    value: sets.map((set) => new asn1js.Set({ value: set.map(([type, value]) => new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), value] })) })),
  }).toBER();
  return new pkijs.RelativeDistinguishedNames({ typesAndValues, valueBeforeDecode: der });
}
const utf8 = (value: string) => new asn1js.Utf8String({ value });
const cn = (value: string) => dn([[CN, utf8(value)]]);
const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s/g, ""), "hex"));
const ext = (id: string, value: Uint8Array, critical = false) =>
  new pkijs.Extension({ extnID: id, critical, extnValue: value.slice().buffer });
const BC_LEAF = ext("2.5.29.19", hex("3000"), true);
const KU_SIGN = ext("2.5.29.15", hex("03020780"), true);
const ski = (id: Uint8Array) => ext("2.5.29.14", new Uint8Array([0x04, id.length, ...id]));
const aki = (id: Uint8Array) => ext("2.5.29.35", new Uint8Array([0x30, id.length + 2, 0x80, id.length, ...id]));

interface Spec {
  issuer: pkijs.RelativeDistinguishedNames;
  subject: pkijs.RelativeDistinguishedNames;
  signer: Uint8Array;
  spki?: Uint8Array;
  subjectSecret?: string;
  notBefore?: Date;
  notAfter?: Date;
  generalized?: boolean;
  extensions?: pkijs.Extension[];
  serial?: number;
  version?: number;
}

let serialCounter = 5000;
function certificate(spec: Spec): Uint8Array {
  const cert = new pkijs.Certificate();
  cert.version = spec.version ?? 2;
  cert.serialNumber = new asn1js.Integer({ value: spec.serial ?? serialCounter++ });
  cert.issuer = spec.issuer;
  cert.subject = spec.subject;
  cert.notBefore = new pkijs.Time({ type: spec.generalized ? 1 : 0, value: spec.notBefore ?? new Date("2026-01-01Z") });
  cert.notAfter = new pkijs.Time({ type: spec.generalized ? 1 : 0, value: spec.notAfter ?? new Date("2035-01-01Z") });
  const spki = spec.spki ?? p256Spki(p256PublicPoint(deriveSecret(spec.subjectSecret ?? `leaf ${serialCounter}`)));
  cert.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(spki.slice().buffer);
  if (spec.extensions) cert.extensions = spec.extensions;
  const algorithm = () => new pkijs.AlgorithmIdentifier({ algorithmId: "1.2.840.10045.4.3.2" });
  cert.signature = algorithm();
  cert.signatureAlgorithm = algorithm();
  const tbs = new Uint8Array(cert.encodeTBS().toBER());
  cert.tbsView = tbs;
  cert.signatureValue = new asn1js.BitString({ valueHex: p256.sign(tbs, spec.signer, { format: "der" }) });
  return new Uint8Array(cert.toSchema().toBER());
}

/** The TBSCertificate bytes of a certificate built above (its outer length takes two bytes). */
function tbsOf(der: Uint8Array): Uint8Array {
  expect([der[0], der[1], der[4]]).toEqual([0x30, 0x82, 0x30]);
  const [header, length] = der[5] === 0x81 ? [3, der[6]!] : [4, (der[6]! << 8) | der[7]!];
  return der.slice(4, 4 + header + length);
}

function derLength(length: number): number[] {
  return length < 0x80 ? [length] : length < 0x100 ? [0x81, length] : [0x82, length >> 8, length & 0xff];
}

/** A certificate around `tbs`, signed with ecdsa-with-SHA256 by `secret`, whatever `tbs` holds. */
function resign(tbs: Uint8Array, secret: Uint8Array): Uint8Array {
  const signature = [0x00, ...p256.sign(tbs, secret, { format: "der" })];
  const body = [...tbs, ...hex("300a06082a8648ce3d040302"), 0x03, ...derLength(signature.length), ...signature];
  return new Uint8Array([0x30, ...derLength(body.length), ...body]);
}

/** A vendor with key identifiers and two-attribute names, like the demo vendor. */
function keyedVendor() {
  const rootSecret = deriveSecret("keyed/root");
  const intermediateSecret = deriveSecret("keyed/intermediate");
  const rootId = hex("01".repeat(20));
  const intermediateId = hex("02".repeat(20));
  const rootName = dn([[CN, utf8("Keyed Root")]], [[O, new asn1js.PrintableString({ value: "Keyed" })]]);
  const intermediateName = dn([[CN, utf8("Keyed CA306")]], [[O, new asn1js.PrintableString({ value: "Keyed" })]]);
  const caExtensions = (id: Uint8Array, issuerId?: Uint8Array) => [
    ext("2.5.29.19", hex("30030101ff"), true), ext("2.5.29.15", hex("03020106"), true), ski(id), ...(issuerId ? [aki(issuerId)] : []),
  ];
  const root = certificate({ issuer: rootName, subject: rootName, signer: rootSecret, spki: p256Spki(p256PublicPoint(rootSecret)), extensions: caExtensions(rootId) });
  const intermediate = certificate({
    issuer: rootName, subject: intermediateName, signer: rootSecret, spki: p256Spki(p256PublicPoint(intermediateSecret)),
    extensions: caExtensions(intermediateId, rootId),
  });
  return { rootSecret, intermediateSecret, rootId, intermediateId, rootName, intermediateName, pem: toPem(root) + toPem(intermediate) };
}

/**
 * A P-256 point whose x is written as x + p: the curve's equation holds modulo p, but the coordinate is not below the
 * prime (x is the smallest one on the curve, so x + p still fits 32 bytes). Both sides must refuse it.
 */
function unreducedPoint(): Uint8Array {
  const P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
  const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
  const pow = (base: bigint, exponent: bigint) => {
    let result = 1n;
    for (let b = base % P, e = exponent; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) result = (result * b) % P;
    return result;
  };
  for (let x = 0n; ; x++) {
    const y2 = (((x * x * x - 3n * x + B) % P) + P) % P;
    const y = pow(y2, (P + 1n) / 4n); // p = 3 mod 4
    if ((y * y) % P !== y2) continue;
    const bytes = (value: bigint) => hex(value.toString(16).padStart(64, "0"));
    expect(p256.Point.fromBytes(new Uint8Array([4, ...bytes(x), ...bytes(y)])).x).toBe(x);
    return new Uint8Array([4, ...bytes(x + P), ...bytes(y)]);
  }
}

/** Compare the fast path, `validateChain` and pkijs alone on one leaf at one time; returns whether the fast path took it. */
async function differential(bundle: TrustBundle, der: Uint8Array, at: Date): Promise<boolean> {
  const reference = await validateChainWithPkijs(der, bundle, at);
  const fast = validateLeafFast(der, bundle.routes, at);
  if (fast) {
    expect(reference.ok).toBe(true);
    expect(reference.ok && [reference.leaf.publicKey, reference.window]).toEqual([fast.point, fast.window]);
  }
  const combined = await validateChain(der, bundle, at);
  if (reference.ok) expect(combined.ok && combined.leaf.publicKey).toEqual(reference.leaf.publicKey);
  else expect(combined).toEqual(reference);
  return fast !== null;
}

const TIMES = [TEST_NOW, new Date("2026-01-01Z"), new Date("2025-12-31T23:59:59.999Z"), new Date("2035-01-01Z"),
  new Date("2035-01-01T00:00:00.001Z"), new Date("2036-06-01Z")];

describe("new-leaf fast path agrees with pkijs", () => {
  const acme = makeVendor("acme");
  const acmeIssuer = cn("acme CA306");
  const keyed = keyedVendor();

  const acmeCases: [string, () => Uint8Array, boolean][] = [
    ["a fixture chip", () => acme.issueChip("one").der, true],
    ["a chip without extensions", () => acme.issueChip("bare", { keyUsage: null, ca: null }).der, false],
    ["BC and KU", () => certificate({ issuer: acmeIssuer, subject: cn("c1"), signer: acme.intermediateSecret, extensions: [BC_LEAF, KU_SIGN] }), true],
    ["the issuer name in other case and spacing", () => certificate({ issuer: cn("  ACME   ca306 "), subject: cn("c2"), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), true],
    ["the issuer name as PrintableString", () => certificate({ issuer: dn([[CN, new asn1js.PrintableString({ value: "acme CA306" })]]), subject: cn("c3"), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), true],
    ["the issuer name as BMPString", () => certificate({ issuer: dn([[CN, new asn1js.BmpString({ value: "acme CA306" })]]), subject: cn("c4"), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), false],
    ["GeneralizedTime validity", () => certificate({ issuer: acmeIssuer, subject: cn("c5"), signer: acme.intermediateSecret, generalized: true, extensions: [KU_SIGN] }), true],
    ["validity to 2050 (GeneralizedTime)", () => certificate({ issuer: acmeIssuer, subject: cn("c6"), signer: acme.intermediateSecret, notAfter: new Date("2050-06-01Z"), generalized: true, extensions: [KU_SIGN] }), true],
    ["a multi-RDN subject", () => certificate({ issuer: acmeIssuer, subject: dn([[CN, utf8("c7")], [O, utf8("x")]], [[O, utf8("y")]]), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), true],
    ["a subject key id and a foreign authority key id", () => certificate({ issuer: acmeIssuer, subject: cn("c8"), signer: acme.intermediateSecret, extensions: [KU_SIGN, ski(hex("aa")), aki(hex("bb"))] }), true],
    ["its own key id as authority key id", () => certificate({ issuer: acmeIssuer, subject: cn("c9"), signer: acme.intermediateSecret, extensions: [ski(hex("aa")), aki(hex("aa"))] }), false],
    ["a CA leaf", () => certificate({ issuer: acmeIssuer, subject: cn("c10"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.19", hex("30030101ff"), true)] }), false],
    ["cA FALSE spelled out", () => certificate({ issuer: acmeIssuer, subject: cn("c11"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.19", hex("3003010100"), true)] }), false],
    ["keyUsage without digitalSignature", () => certificate({ issuer: acmeIssuer, subject: cn("c12"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.15", hex("03020520"), true)] }), false],
    ["keyUsage with keyCertSign too", () => certificate({ issuer: acmeIssuer, subject: cn("c13"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.15", hex("03020284"), true)] }), true],
    ["keyUsage of two bytes", () => certificate({ issuer: acmeIssuer, subject: cn("c14"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.15", hex("0303078080"), true)] }), true],
    ["keyUsage with a non-zero unused bit", () => certificate({ issuer: acmeIssuer, subject: cn("c15"), signer: acme.intermediateSecret, extensions: [ext("2.5.29.15", hex("03020781"), true)] }), false],
    ["a subjectAltName", () => certificate({ issuer: acmeIssuer, subject: cn("c16"), signer: acme.intermediateSecret, extensions: [KU_SIGN, ext("2.5.29.17", hex("3005820363313f"))] }), false],
    ["certificatePolicies", () => certificate({ issuer: acmeIssuer, subject: cn("c17"), signer: acme.intermediateSecret, extensions: [KU_SIGN, ext("2.5.29.32", hex("300630040602 2a03"))] }), false],
    ["keyUsage twice", () => certificate({ issuer: acmeIssuer, subject: cn("c18"), signer: acme.intermediateSecret, extensions: [KU_SIGN, KU_SIGN] }), false],
    ["an unknown critical extension", () => certificate({ issuer: acmeIssuer, subject: cn("c19"), signer: acme.intermediateSecret, extensions: [KU_SIGN, ext("1.2.3.4", hex("0500"), true)] }), false],
    ["a v1 certificate", () => certificate({ issuer: acmeIssuer, subject: cn("c20"), signer: acme.intermediateSecret, version: 0 }), false],
    ["a P-384 key", () => acme.issueChip("p384", { curve: "P-384" }).der, false],
    ["a point off the curve", () => certificate({ issuer: acmeIssuer, subject: cn("c21"), signer: acme.intermediateSecret, spki: new Uint8Array([...p256Spki(p256PublicPoint(deriveSecret("x"))).subarray(0, 90), 0]), extensions: [KU_SIGN] }), false],
    ["a point's x not below the prime", () => certificate({ issuer: acmeIssuer, subject: cn("c21p"), signer: acme.intermediateSecret, spki: p256Spki(unreducedPoint()), extensions: [KU_SIGN] }), false],
    ["a hybrid-encoded point (0x06 or 0x07)", () => { const point = p256PublicPoint(deriveSecret("hybrid")).slice(); point[0] = 6 + (point[64]! & 1); return certificate({ issuer: acmeIssuer, subject: cn("c21h"), signer: acme.intermediateSecret, spki: p256Spki(point), extensions: [KU_SIGN] }); }, false],
    ["an expired leaf", () => certificate({ issuer: acmeIssuer, subject: cn("c22"), signer: acme.intermediateSecret, notBefore: new Date("2020-01-01Z"), notAfter: new Date("2026-05-01Z"), extensions: [KU_SIGN] }), false],
    ["a leaf not yet valid", () => certificate({ issuer: acmeIssuer, subject: cn("c23"), signer: acme.intermediateSecret, notBefore: new Date("2026-07-01Z"), extensions: [KU_SIGN] }), false],
    ["a leaf signed by another key", () => certificate({ issuer: acmeIssuer, subject: cn("c24"), signer: deriveSecret("nobody"), extensions: [KU_SIGN] }), false],
    ["a leaf signed by the root", () => certificate({ issuer: cn("acme Root CA"), subject: cn("c25"), signer: acme.rootSecret, extensions: [KU_SIGN] }), false],
    ["a leaf naming an unknown issuer", () => certificate({ issuer: cn("acme CA307"), subject: cn("c26"), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), false],
    ["a self-signed leaf", () => certificate({ issuer: cn("c27"), subject: cn("c27"), signer: deriveSecret("c27"), subjectSecret: "c27", extensions: [KU_SIGN] }), false],
    ["a leaf named like the root", () => certificate({ issuer: acmeIssuer, subject: cn("acme Root CA"), signer: acme.intermediateSecret, extensions: [KU_SIGN] }), false],
    ["another vendor's chip", () => makeVendor("foreign").issueChip("x").der, false],
    ["a tampered signature", () => { const d = acme.issueChip("t1").der.slice(); d[d.length - 1]! ^= 1; return d; }, false],
    ["a tampered serial", () => { const d = acme.issueChip("t2").der.slice(); d[15]! ^= 1; return d; }, false],
    ["trailing bytes", () => new Uint8Array([...acme.issueChip("t3").der, 0]), false],
    ["a truncated certificate", () => acme.issueChip("t4").der.slice(0, -1), false],
    ["the intermediate itself", () => acme.intermediateDer, false],
  ];

  it.each(acmeCases)("%s", async (_label, leaf, fastAtNow) => {
    const bundle = await loadTrustBundle(acme.bundlePem);
    const der = leaf();
    const taken: boolean[] = [];
    for (const at of TIMES) taken.push(await differential(bundle, der, at));
    expect(taken[0]).toBe(fastAtNow);
  });

  it("takes keyed leaves through the key identifier and agrees on every other key id", async () => {
    const bundle = await loadTrustBundle(keyed.pem);
    const leaf = (extensions: pkijs.Extension[], issuer = keyed.intermediateName) =>
      certificate({ issuer, subject: dn([[CN, utf8("chip k")]], [[O, utf8("Keyed")]]), signer: keyed.intermediateSecret, extensions });
    expect(await differential(bundle, leaf([BC_LEAF, KU_SIGN, aki(keyed.intermediateId)]), TEST_NOW)).toBe(true);
    expect(await differential(bundle, leaf([KU_SIGN, aki(keyed.intermediateId), ski(hex("03"))]), TEST_NOW)).toBe(true);
    expect(await differential(bundle, leaf([KU_SIGN, aki(keyed.rootId)]), TEST_NOW)).toBe(false);
    expect(await differential(bundle, leaf([KU_SIGN, aki(hex("09"))]), TEST_NOW)).toBe(false);
    // Matched by key id but named after another issuer: pkijs' name chaining refuses it.
    expect(await differential(bundle, leaf([KU_SIGN, aki(keyed.intermediateId)], cn("other")), TEST_NOW)).toBe(false);
    // A leaf whose key id is the root's: it could issue the intermediate, so pkijs decides.
    expect(await differential(bundle, leaf([KU_SIGN, aki(keyed.intermediateId), ski(keyed.rootId)]), TEST_NOW)).toBe(false);
  });

  it("takes the demo vendor's chips", async () => {
    const vendor = await createDemoVendor("differential");
    const bundle = await loadTrustBundle(`${vendor.rootCertPem}\n${vendor.intermediateCertPem}`);
    for (const name of ["a", "b"]) {
      const der = new Uint8Array(Buffer.from((await vendor.issueChip(name)).leafCertPem.replace(/-----[^-]+-----|\s/g, ""), "base64"));
      expect(await differential(bundle, der, TEST_NOW)).toBe(true);
    }
  });

  it("agrees on re-signed leaves with one byte of the signed part changed", async () => {
    const bundle = await loadTrustBundle(acme.bundlePem);
    const base = certificate({ issuer: acmeIssuer, subject: dn([[CN, utf8("mutant")]], [[O, utf8("acme")]]), signer: acme.intermediateSecret,
      generalized: true, extensions: [BC_LEAF, KU_SIGN, ski(hex("0a0b")), aki(hex("0c0d"))] });
    const tbs = tbsOf(base);
    let fastTaken = 0;
    for (let i = 0; i < 400; i++) {
      const mutated = tbs.slice();
      const at = (i * 7919) % mutated.length;
      mutated[at] = i % 3 === 0 ? mutated[at]! ^ (1 << (i % 8)) : (i * 31) & 0xff;
      if (await differential(bundle, resign(mutated, acme.intermediateSecret), TEST_NOW)) fastTaken++;
    }
    expect(fastTaken).toBeGreaterThan(0);
  });

  it("leaves bundles it cannot route to pkijs", async () => {
    // Two intermediates under one name (a key roll-over): the leaf has two possible issuers.
    const rolled = certificate({
      issuer: cn("acme Root CA"), subject: cn("acme CA306"), signer: acme.rootSecret,
      spki: p256Spki(p256PublicPoint(deriveSecret("acme/intermediate-2"))), extensions: [ext("2.5.29.19", hex("30030101ff"), true)],
    });
    const chip = acme.issueChip("rolled").der;
    expect(await differential(await loadTrustBundle(acme.bundlePem + toPem(rolled)), chip, TEST_NOW)).toBe(false);
    // An intermediate with a certificate policy: policy processing is pkijs' business.
    const withPolicy = certificate({
      issuer: cn("acme Root CA"), subject: cn("acme CA306"), signer: acme.rootSecret,
      spki: p256Spki(p256PublicPoint(acme.intermediateSecret)),
      extensions: [ext("2.5.29.19", hex("30030101ff"), true), ext("2.5.29.32", hex("300630040602 2a03"))],
    });
    expect(await differential(await loadTrustBundle(toPem(acme.rootDer) + toPem(withPolicy)), chip, TEST_NOW)).toBe(false);
  });
});

import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { p256Spki } from "../../../subgraphs/verify/evidence/format.js";
import { loadTrustBundle, parseCertificate, TrustBundleError, validateChain } from "../../../subgraphs/verify/evidence/trust.js";
import { deriveSecret, issueCertificate, KEY_USAGE, makeVendor, p256PublicPoint, TEST_NOW, toPem } from "./evidence-fixtures.js";

const vendor = makeVendor("acme");
const foreign = makeVendor("foreign");

describe("loadTrustBundle", () => {
  it("sorts self-signed roots from intermediates", async () => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    expect(bundle.roots).toHaveLength(1);
    expect(bundle.intermediates).toHaveLength(1);
  });

  it.each([
    ["no certificate", "nothing here"],
    ["only a root", toPem(vendor.rootDer)],
    ["only an intermediate", toPem(vendor.intermediateDer)],
    ["a leaf", vendor.bundlePem + vendor.issueChip("leaf-in-bundle").pem],
    ["garbage in a PEM block", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"],
  ])("refuses a bundle with %s", async (_label, pem) => {
    await expect(loadTrustBundle(pem)).rejects.toThrow(TrustBundleError);
  });
});

describe("validateChain", () => {
  const chip = vendor.issueChip("one");

  it("accepts leaf -> vendor intermediate -> pinned root and returns the P-256 point", async () => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    const result = await validateChain(chip.der, bundle, TEST_NOW);
    expect(result.ok && result.leaf.publicKey).toEqual(p256PublicPoint(chip.secret));
  });

  it("accepts a leaf without keyUsage or basicConstraints", async () => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    const bare = vendor.issueChip("bare", { keyUsage: null, ca: null });
    expect((await validateChain(bare.der, bundle, TEST_NOW)).ok).toBe(true);
  });

  it("verifies every new leaf's own signature after the bundle's verdicts are kept", async () => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    for (let i = 0; i < 3; i++) {
      const good = vendor.issueChip(`kept-${i}`);
      expect((await validateChain(good.der, bundle, TEST_NOW)).ok).toBe(true);
      // The same leaf with the last byte of its signature changed: still DER, no longer signed by the intermediate.
      const forged = good.der.slice();
      forged[forged.length - 1]! ^= 0x01;
      const result = await validateChain(forged, bundle, TEST_NOW);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toMatch(/^chain: /);
    }
    // A leaf signed by another vendor's intermediate under the same names is refused too.
    expect((await validateChain(foreign.issueChip("kept-foreign").der, bundle, TEST_NOW)).ok).toBe(false);
  });

  it("does not fall into the pkijs leaf-last trap", async () => {
    // A leaf from another vendor, handed to pkijs in the wrong order, "validates": pkijs checks the LAST
    // certificate (here our intermediate) and never looks at the leaf.
    const intruder = foreign.issueChip("intruder");
    const root = parseCertificate(vendor.rootDer)!;
    const intermediate = parseCertificate(vendor.intermediateDer)!;
    const wrongOrder = new pkijs.CertificateChainValidationEngine({
      trustedCerts: [root],
      certs: [parseCertificate(intruder.der)!, intermediate],
      checkDate: TEST_NOW,
    });
    const trap = await wrongOrder.verify();
    expect(trap.result).toBe(true);
    expect(trap.certificatePath![0]).toBe(intermediate);

    const bundle = await loadTrustBundle(vendor.bundlePem);
    expect((await validateChain(intruder.der, bundle, TEST_NOW)).ok).toBe(false);
  });

  const rejected: [string, () => Uint8Array, RegExp][] = [
    ["a leaf of another vendor", () => foreign.issueChip("x").der, /^chain: /],
    ["the intermediate as leaf", () => vendor.intermediateDer, /CA certificate/],
    ["the root as leaf", () => vendor.rootDer, /CA certificate/],
    ["a leaf that is a CA", () => vendor.issueChip("ca", { ca: true, keyUsage: KEY_USAGE.keyCertSign | KEY_USAGE.digitalSignature }).der, /CA certificate/],
    ["a leaf without digitalSignature", () => vendor.issueChip("enc", { keyUsage: KEY_USAGE.keyEncipherment }).der, /digitalSignature/],
    ["a P-384 leaf", () => vendor.issueChip("p384", { curve: "P-384" }).der, /P-256/],
    ["an expired leaf", () => vendor.issueChip("old", { notBefore: new Date("2020-01-01Z"), notAfter: new Date("2026-05-01Z") }).der, /not yet valid or expired/],
    ["a leaf not yet valid", () => vendor.issueChip("new", { notBefore: new Date("2026-07-01Z") }).der, /not yet valid or expired/],
    ["a self-signed leaf", () => {
      const secret = deriveSecret("self");
      return issueCertificate({
        subjectCn: "acme CA306", issuerCn: "acme CA306", subjectSpki: p256Spki(p256PublicPoint(secret)),
        issuerSecret: secret, serial: 7, ca: false, keyUsage: KEY_USAGE.digitalSignature,
      });
    }, /^chain: /],
    ["a leaf issued directly by the root (path of 2)", () => issueCertificate({
      subjectCn: "chip direct", issuerCn: "acme Root CA", subjectSpki: p256Spki(p256PublicPoint(deriveSecret("direct"))),
      issuerSecret: vendor.rootSecret, serial: 8, ca: false, keyUsage: KEY_USAGE.digitalSignature,
    }), /^chain: /],
    ["a leaf signed by a key that impersonates the intermediate's name", () => issueCertificate({
      subjectCn: "chip fake", issuerCn: "acme CA306", subjectSpki: p256Spki(p256PublicPoint(deriveSecret("fake"))),
      issuerSecret: deriveSecret("not the intermediate"), serial: 9, ca: false, keyUsage: KEY_USAGE.digitalSignature,
    }), /^chain: /],
    ["a certificate with trailing bytes", () => new Uint8Array([...vendor.issueChip("one").der, 0]), /not a DER certificate/],
    ["bytes that are no certificate", () => new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]), /not a DER certificate/],
  ];
  it.each(rejected)("rejects %s", async (_label, leaf, reason) => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    const result = await validateChain(leaf(), bundle, TEST_NOW);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it("rejects a root with the pinned name but another key", async () => {
    const impostorSecret = deriveSecret("impostor root");
    const impostorRoot = issueCertificate({
      subjectCn: "acme Root CA", issuerCn: "acme Root CA", subjectSpki: p256Spki(p256PublicPoint(impostorSecret)),
      issuerSecret: impostorSecret, serial: 1, ca: true, keyUsage: KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign,
    });
    const bundle = await loadTrustBundle(toPem(impostorRoot) + toPem(vendor.intermediateDer));
    expect((await validateChain(chip.der, bundle, TEST_NOW)).ok).toBe(false);
  });

  it("rejects a path longer than leaf -> intermediate -> root", async () => {
    const subSecret = deriveSecret("sub-intermediate");
    const sub = issueCertificate({
      subjectCn: "acme sub", issuerCn: "acme CA306", subjectSpki: p256Spki(p256PublicPoint(subSecret)),
      issuerSecret: vendor.intermediateSecret, serial: 3, ca: true, keyUsage: KEY_USAGE.keyCertSign,
    });
    const deepLeaf = issueCertificate({
      subjectCn: "chip deep", issuerCn: "acme sub", subjectSpki: p256Spki(p256PublicPoint(deriveSecret("deep"))),
      issuerSecret: subSecret, serial: 4, ca: false, keyUsage: KEY_USAGE.digitalSignature,
    });
    const bundle = await loadTrustBundle(vendor.bundlePem + toPem(sub));
    const result = await validateChain(deepLeaf, bundle, TEST_NOW);
    expect(result).toEqual({ ok: false, reason: "chain: path length 4, expected 3" });
  });

  it("re-checks the validity window when a validated leaf comes back from the cache", async () => {
    const bundle = await loadTrustBundle(vendor.bundlePem);
    const shortLived = vendor.issueChip("short", { notAfter: new Date("2026-07-01Z") });
    expect((await validateChain(shortLived.der, bundle, TEST_NOW)).ok).toBe(true);
    expect((await validateChain(shortLived.der, bundle, TEST_NOW)).ok).toBe(true);
    expect((await validateChain(shortLived.der, bundle, new Date("2026-07-02Z"))).ok).toBe(false);
    expect((await validateChain(shortLived.der, bundle, new Date("2025-12-31Z"))).ok).toBe(false);
  });
});

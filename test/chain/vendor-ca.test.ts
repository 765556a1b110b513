import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { createDemoVendor } from "../../subgraphs/shared/crypto/vendor-ca.js";

pkijs.setEngine("node-webcrypto", new pkijs.CryptoEngine({ name: "node-webcrypto", crypto: webcrypto as Crypto }));

function toPkijs(pem: string): pkijs.Certificate {
  return pkijs.Certificate.fromBER(new x509.X509Certificate(pem).rawData);
}

describe("demo vendor CA", () => {
  it("issues a chip leaf that chains to the root through the intermediate", async () => {
    const vendor = await createDemoVendor("test-seed");
    const chip = await vendor.issueChip("chip-1");
    const leaf = toPkijs(chip.leafCertPem);

    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: [toPkijs(vendor.rootCertPem)],
      // pkijs treats the LAST certificate as the one to validate.
      certs: [toPkijs(vendor.intermediateCertPem), leaf],
      checkDate: new Date("2030-01-01T00:00:00Z"),
    });
    const result = await engine.verify();
    expect(result.result, result.resultMessage).toBe(true);
    expect(result.certificatePath?.[0].subject.toString()).toBe(leaf.subject.toString());
    expect(Buffer.from(result.certificatePath![0].toSchema().toBER())).toEqual(
      Buffer.from(new x509.X509Certificate(chip.leafCertPem).rawData),
    );
  });

  it("rejects a leaf from another vendor seed", async () => {
    const vendor = await createDemoVendor("test-seed");
    const stranger = await (await createDemoVendor("other-seed")).issueChip("chip-1");
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: [toPkijs(vendor.rootCertPem)],
      certs: [toPkijs(vendor.intermediateCertPem), toPkijs(stranger.leafCertPem)],
      checkDate: new Date("2030-01-01T00:00:00Z"),
    });
    expect((await engine.verify()).result).toBe(false);
  });

  it("has the documented extensions, validity and a small leaf", async () => {
    const vendor = await createDemoVendor("test-seed");
    const chip = await vendor.issueChip("chip-1");
    const root = new x509.X509Certificate(vendor.rootCertPem);
    const intermediate = new x509.X509Certificate(vendor.intermediateCertPem);
    const leaf = new x509.X509Certificate(chip.leafCertPem);

    expect(leaf.rawData.byteLength).toBeLessThan(1000);
    for (const cert of [root, intermediate, leaf]) {
      expect(cert.notBefore.toISOString()).toBe("2025-01-01T00:00:00.000Z");
      expect(cert.notAfter.toISOString()).toBe("2045-01-01T00:00:00.000Z");
      expect(cert.signatureAlgorithm).toMatchObject({ name: "ECDSA", hash: { name: "SHA-256" } });
    }
    const constraints = (cert: x509.X509Certificate) => cert.getExtension(x509.BasicConstraintsExtension)!;
    const usages = (cert: x509.X509Certificate) => cert.getExtension(x509.KeyUsagesExtension)!.usages;
    const caUsage = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign;
    expect(constraints(root).ca).toBe(true);
    expect(usages(root)).toBe(caUsage);
    expect(root.getExtension(x509.SubjectKeyIdentifierExtension)).not.toBeNull();
    expect(constraints(intermediate)).toMatchObject({ ca: true, pathLength: 0 });
    expect(usages(intermediate)).toBe(caUsage);
    expect(intermediate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(
      root.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    );
    expect(constraints(leaf).ca).toBe(false);
    expect(usages(leaf)).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(
      intermediate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    );
  });

  it("is deterministic and its chip key signs verifiably", async () => {
    const [a, b] = await Promise.all([createDemoVendor("test-seed"), createDemoVendor("test-seed")]);
    const [chipA, chipB] = await Promise.all([a.issueChip("chip-7"), b.issueChip("chip-7")]);
    expect(a.rootCertPem).toBe(b.rootCertPem);
    expect(chipA).toEqual(chipB);

    const der = Buffer.from(chipA.privateKeyPem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
    const algorithm = { name: "ECDSA", namedCurve: "P-256" };
    const key = await webcrypto.subtle.importKey("pkcs8", der, algorithm, false, ["sign"]);
    const message = new TextEncoder().encode("challenge");
    const signature = await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, message);
    const publicKey = await new x509.X509Certificate(chipA.leafCertPem).publicKey.export(algorithm, ["verify"]);
    expect(await webcrypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, signature, message)).toBe(true);
  });
});

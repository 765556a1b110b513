/**
 * Demo chip vendor CA: a root, an intermediate and chip leaf certificates (ECDSA P-256), generated deterministically
 * from a seed so the demo fixture is reproducible. In dev mode the root and intermediate are the pinned trust bundle.
 *
 * Determinism: every key is `sha256(seed|label)` reduced into [1, n-1], and certificates are signed with RFC 6979
 * deterministic ECDSA (@noble/curves) instead of WebCrypto's randomized signatures, so the same seed yields the same
 * certificate bytes on every run.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

export interface DemoChip {
  leafCertPem: string;
  /** PKCS#8 PEM of the chip's P-256 private key. */
  privateKeyPem: string;
}

export interface DemoVendor {
  rootCertPem: string;
  intermediateCertPem: string;
  /** Issue a chip leaf certificate under the intermediate; `name` picks the deterministic key and serial. */
  issueChip(name: string): Promise<DemoChip>;
}

const VENDOR_ORG = "Demo Chip Vendor";
const NOT_BEFORE = new Date("2025-01-01T00:00:00Z");
const NOT_AFTER = new Date("2045-01-01T00:00:00Z");
const EC_PARAMS = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING_ALGORITHM = { name: "ECDSA", hash: "SHA-256" } as const;

interface DerivedKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** Private scalars of the keys we derived, so the deterministic signer below can find them. */
const scalarsByKey = new WeakMap<CryptoKey, Uint8Array>();

/**
 * WebCrypto with one change: ECDSA signing with a derived key is RFC 6979 deterministic. @peculiar/x509 takes the
 * crypto object as a parameter, so nothing global is patched.
 */
const deterministicCrypto = {
  getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
  randomUUID: webcrypto.randomUUID.bind(webcrypto),
  subtle: new Proxy(webcrypto.subtle, {
    get(target, property) {
      if (property === "sign") {
        return async (algorithm: unknown, key: CryptoKey, data: BufferSource) => {
          const scalar = scalarsByKey.get(key);
          if (!scalar) return target.sign(algorithm as AlgorithmIdentifier, key, data);
          const bytes = ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : new Uint8Array(data);
          // WebCrypto's ECDSA output format: raw r||s (64 bytes), message hashed with SHA-256.
          return p256.sign(bytes, scalar, { prehash: true, format: "compact" }).slice().buffer;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }),
} as unknown as Crypto;

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** Scalar = sha256(seed|label) mod (n - 1) + 1: always a valid, non-zero P-256 private key. */
function deriveScalar(seed: string, label: string): Uint8Array {
  const order = p256.Point.Fn.ORDER;
  const digest = BigInt(`0x${bytesToHex(sha256(utf8ToBytes(`${seed}|${label}`)))}`);
  const scalar = (digest % (order - 1n)) + 1n;
  return Uint8Array.from(Buffer.from(scalar.toString(16).padStart(64, "0"), "hex"));
}

async function deriveKeyPair(seed: string, label: string): Promise<DerivedKeyPair> {
  const scalar = deriveScalar(seed, label);
  const uncompressed = p256.getPublicKey(scalar, false); // 0x04 || x || y
  const publicJwk = {
    kty: "EC",
    crv: "P-256",
    x: base64url(uncompressed.slice(1, 33)),
    y: base64url(uncompressed.slice(33, 65)),
    ext: true,
  };
  const subtle = webcrypto.subtle;
  const privateKey = await subtle.importKey("jwk", { ...publicJwk, d: base64url(scalar) }, EC_PARAMS, true, ["sign"]);
  const publicKey = await subtle.importKey("jwk", publicJwk, EC_PARAMS, true, ["verify"]);
  scalarsByKey.set(privateKey, scalar);
  return { privateKey, publicKey };
}

/** Positive 128-bit serial derived from the seed and the certificate's label. */
function deriveSerial(seed: string, label: string): string {
  const bytes = sha256(utf8ToBytes(`${seed}|serial|${label}`)).slice(0, 16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01; // positive and without a leading zero byte
  return bytesToHex(bytes);
}

interface IssueParams {
  seed: string;
  label: string;
  subject: string;
  issuer: string;
  subjectKeys: DerivedKeyPair;
  issuerKeys: DerivedKeyPair;
  extensions: x509.Extension[];
}

async function issueCertificate(params: IssueParams): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create(
    {
      serialNumber: deriveSerial(params.seed, params.label),
      subject: params.subject,
      issuer: params.issuer,
      notBefore: NOT_BEFORE,
      notAfter: NOT_AFTER,
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: params.subjectKeys.publicKey,
      signingKey: params.issuerKeys.privateKey,
      extensions: params.extensions,
    },
    deterministicCrypto,
  );
}

const { KeyUsageFlags } = x509;
const CA_KEY_USAGE = KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign;

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

function certPem(cert: x509.X509Certificate): string {
  return `${cert.toString("pem")}\n`;
}

export async function createDemoVendor(seed: string): Promise<DemoVendor> {
  const rootName = `CN=${VENDOR_ORG} Root CA,O=${VENDOR_ORG}`;
  const intermediateName = `CN=${VENDOR_ORG} CA306,O=${VENDOR_ORG}`;
  const rootKeys = await deriveKeyPair(seed, "root");
  const intermediateKeys = await deriveKeyPair(seed, "intermediate");

  const root = await issueCertificate({
    seed,
    label: "root",
    subject: rootName,
    issuer: rootName,
    subjectKeys: rootKeys,
    issuerKeys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(CA_KEY_USAGE, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey, false, deterministicCrypto),
    ],
  });
  const intermediate = await issueCertificate({
    seed,
    label: "intermediate",
    subject: intermediateName,
    issuer: rootName,
    subjectKeys: intermediateKeys,
    issuerKeys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(CA_KEY_USAGE, true),
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey, false, deterministicCrypto),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey, false, deterministicCrypto),
    ],
  });

  return {
    rootCertPem: certPem(root),
    intermediateCertPem: certPem(intermediate),
    async issueChip(name: string): Promise<DemoChip> {
      const chipKeys = await deriveKeyPair(seed, `chip|${name}`);
      const leaf = await issueCertificate({
        seed,
        label: `chip|${name}`,
        subject: `CN=${name},O=${VENDOR_ORG}`,
        issuer: intermediateName,
        subjectKeys: chipKeys,
        issuerKeys: intermediateKeys,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
          await x509.AuthorityKeyIdentifierExtension.create(intermediateKeys.publicKey, false, deterministicCrypto),
        ],
      });
      return { leafCertPem: certPem(leaf), privateKeyPem: await pkcs8Pem(chipKeys.privateKey) };
    },
  };
}

/**
 * Deterministic test material for the evidence format: P-256 certificates built with pkijs and signed with
 * @noble/curves (RFC 6979, so the same seed always gives the same bytes), a vendor chain, chips, controllers and
 * challenges. Also used by scripts/verify-vectors.ts, which is why nothing here depends on vitest.
 */
import "reflect-metadata";
import { createPrivateKey } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { p256, p384 } from "@noble/curves/nist.js";
import { Wallet } from "ethers";
import { sha256, toBase64url, utf8 } from "../../../subgraphs/verify/evidence/encoding.js";
import { evidenceProfile, machineDidFor, p256Spki, type EvidenceProfile } from "../../../subgraphs/verify/evidence/format.js";
import type { ChipChallenge } from "../../../subgraphs/verify/evidence/schema.js";
import type { CurrentMachineContext, EvidenceCheckContext } from "../../../subgraphs/verify/evidence/check.js";
import { buildEvidence } from "../../../subgraphs/verify/evidence/kit.js";
import { loadTrustBundle } from "../../../subgraphs/verify/evidence/trust.js";

export const DEFAULT_PROFILE: EvidenceProfile = evidenceProfile({
  namespace: { didMethod: "service", verifier: "service.verify" },
  vendor: { profile: "vendor-chip-ca306/1", trustBundle: "vendor-chip-ca306-roots/1" },
});

/** Fixed clock for tests: 2026-06-01T00:00:00Z. */
export const TEST_NOW = new Date("2026-06-01T00:00:00Z");
const NOT_BEFORE = new Date("2026-01-01T00:00:00Z");
const NOT_AFTER = new Date("2036-01-01T00:00:00Z");

export const KEY_USAGE = { digitalSignature: 0x80, keyEncipherment: 0x20, keyCertSign: 0x04, cRLSign: 0x02 } as const;

/** A P-256 (or P-384) secret derived from a label; deterministic, valid with overwhelming probability. */
export function deriveSecret(label: string, curve: "P-256" | "P-384" = "P-256"): Uint8Array {
  const seed = sha256(utf8(label));
  return curve === "P-256" ? seed : new Uint8Array([...seed, ...sha256(seed).subarray(0, 16)]);
}

export function p256PublicPoint(secret: Uint8Array): Uint8Array {
  return p256.getPublicKey(secret, false);
}

const P384_SPKI_PREFIX = Buffer.from("3076301006072a8648ce3d020106052b81040022036200", "hex");

export interface CertificateSpec {
  subjectCn: string;
  issuerCn: string;
  /** SubjectPublicKeyInfo DER of the subject key. */
  subjectSpki: Uint8Array;
  /** P-256 secret of the issuer (the subject's own for a self-signed certificate). */
  issuerSecret: Uint8Array;
  serial: number;
  notBefore?: Date;
  notAfter?: Date;
  /** true/false: basicConstraints with that cA; null: no basicConstraints extension. */
  ca: boolean | null;
  /** One-byte keyUsage mask (KEY_USAGE bits); null: no keyUsage extension. */
  keyUsage: number | null;
}

/** Build and sign an X.509 v3 certificate (ecdsa-with-SHA256) deterministically; returns its DER. */
export function issueCertificate(spec: CertificateSpec): Uint8Array {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ value: spec.serial });
  cert.issuer = distinguishedName(spec.issuerCn);
  cert.subject = distinguishedName(spec.subjectCn);
  cert.notBefore.value = spec.notBefore ?? NOT_BEFORE;
  cert.notAfter.value = spec.notAfter ?? NOT_AFTER;
  cert.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(spec.subjectSpki.slice().buffer);
  cert.extensions = [];
  if (spec.ca !== null) {
    const bc = new pkijs.BasicConstraints(spec.ca ? { cA: true, pathLenConstraint: 0 } : {});
    cert.extensions.push(new pkijs.Extension({ extnID: "2.5.29.19", critical: true, extnValue: bc.toSchema().toBER() }));
  }
  if (spec.keyUsage !== null) {
    cert.extensions.push(new pkijs.Extension({ extnID: "2.5.29.15", critical: true, extnValue: keyUsageBitString(spec.keyUsage) }));
  }
  const ecdsaSha256 = () => new pkijs.AlgorithmIdentifier({ algorithmId: "1.2.840.10045.4.3.2" });
  cert.signature = ecdsaSha256();
  cert.signatureAlgorithm = ecdsaSha256();
  const tbs = new Uint8Array(cert.encodeTBS().toBER());
  cert.tbsView = tbs;
  const signature = p256.sign(tbs, spec.issuerSecret, { format: "der" }); // SHA-256 then ECDSA, RFC 6979
  cert.signatureValue = new asn1js.BitString({ valueHex: signature });
  return new Uint8Array(cert.toSchema().toBER());
}

function distinguishedName(cn: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: cn }) })],
  });
}

function keyUsageBitString(mask: number): ArrayBuffer {
  let unused = 0;
  while (unused < 7 && ((mask >> unused) & 1) === 0) unused++;
  return new Uint8Array([0x03, 0x02, unused, mask]).buffer;
}

export function toPem(der: Uint8Array, label = "CERTIFICATE"): string {
  const lines = Buffer.from(der).toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export function p256PrivateKeyPem(secret: Uint8Array): string {
  const point = p256PublicPoint(secret);
  const b64 = (bytes: Uint8Array) => toBase64url(bytes);
  const jwk = { kty: "EC", crv: "P-256", d: b64(secret), x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) };
  return createPrivateKey({ key: jwk, format: "jwk" }).export({ type: "pkcs8", format: "pem" }) as string;
}

export interface TestChip {
  der: Uint8Array;
  pem: string;
  secret: Uint8Array;
  privateKeyPem: string;
}

export interface TestVendor {
  rootSecret: Uint8Array;
  intermediateSecret: Uint8Array;
  rootDer: Uint8Array;
  intermediateDer: Uint8Array;
  /** Root and intermediate PEM, the form `loadTrustBundle` reads. */
  bundlePem: string;
  issueChip(name: string, overrides?: Partial<CertificateSpec> & { curve?: "P-256" | "P-384" }): TestChip;
}

/** A vendor root -> intermediate CA pair; every chip it issues is deterministic in (seed, name). */
export function makeVendor(seed: string): TestVendor {
  const rootSecret = deriveSecret(`${seed}/root`);
  const intermediateSecret = deriveSecret(`${seed}/intermediate`);
  const rootCn = `${seed} Root CA`;
  const intermediateCn = `${seed} CA306`;
  const rootDer = issueCertificate({
    subjectCn: rootCn,
    issuerCn: rootCn,
    subjectSpki: p256Spki(p256PublicPoint(rootSecret)),
    issuerSecret: rootSecret,
    serial: 1,
    ca: true,
    keyUsage: KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign,
  });
  const intermediateDer = issueCertificate({
    subjectCn: intermediateCn,
    issuerCn: rootCn,
    subjectSpki: p256Spki(p256PublicPoint(intermediateSecret)),
    issuerSecret: rootSecret,
    serial: 2,
    ca: true,
    keyUsage: KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign,
  });
  let serial = 1000;
  return {
    rootSecret,
    intermediateSecret,
    rootDer,
    intermediateDer,
    bundlePem: toPem(rootDer) + toPem(intermediateDer),
    issueChip(name, overrides = {}) {
      const { curve = "P-256", ...spec } = overrides;
      const secret = deriveSecret(`${seed}/chip/${name}`, curve);
      const spki =
        curve === "P-256"
          ? p256Spki(p256PublicPoint(secret))
          : new Uint8Array([...P384_SPKI_PREFIX, ...p384.getPublicKey(secret, false)]);
      const der = issueCertificate({
        subjectCn: `chip ${name}`,
        issuerCn: intermediateCn,
        subjectSpki: spki,
        issuerSecret: intermediateSecret,
        serial: serial++,
        ca: false,
        keyUsage: KEY_USAGE.digitalSignature,
        ...spec,
      });
      return { der, pem: toPem(der), secret, privateKeyPem: curve === "P-256" ? p256PrivateKeyPem(secret) : "" };
    },
  };
}

/** A controller wallet with a fixed key. */
export function makeController(label: string): Wallet {
  return new Wallet("0x" + Buffer.from(sha256(utf8(`controller/${label}`))).toString("hex"));
}

export function makeChallenge(controller: string, overrides: Partial<ChipChallenge> = {}): ChipChallenge {
  const machineId = overrides.machineId ?? "42";
  return {
    chainId: "3338",
    didController: controller,
    expiresAt: String(TEST_NOW.getTime() / 1000 + 300),
    machineDid: machineDidFor(DEFAULT_PROFILE.didMethod, machineId),
    machineId,
    nonce: "0x" + Buffer.from(sha256(utf8(`nonce/${machineId}`))).toString("hex"),
    profile: DEFAULT_PROFILE.profile,
    protocol: DEFAULT_PROFILE.protocol,
    verifier: DEFAULT_PROFILE.verifier,
    ...overrides,
  };
}

/** The machine context the chain would report for an unchanged challenge. */
export function machineFor(challenge: ChipChallenge): CurrentMachineContext {
  return {
    machineId: challenge.machineId,
    machineDid: challenge.machineDid,
    effectiveController: challenge.didController,
    chainId: challenge.chainId,
  };
}

export const TEST_CONFIG = {
  namespace: { didMethod: DEFAULT_PROFILE.didMethod, verifier: DEFAULT_PROFILE.verifier },
  vendor: { profile: DEFAULT_PROFILE.profile, trustBundle: DEFAULT_PROFILE.trustBundle },
};

/** One vendor, one chip, one controller and a challenge, plus the check context that accepts their evidence. */
export async function makeWorld(seed = "acme") {
  const vendor = makeVendor(seed);
  const trust = await loadTrustBundle(vendor.bundlePem);
  const chip = vendor.issueChip("one");
  const controller = makeController(seed);
  const challenge = makeChallenge(controller.address);
  const context = (overrides: Partial<EvidenceCheckContext> = {}): EvidenceCheckContext => ({
    challenge,
    machine: machineFor(challenge),
    trust,
    now: TEST_NOW,
    ...TEST_CONFIG,
    ...overrides,
  });
  const evidenceText = buildEvidence({
    challenge,
    leafCertPem: chip.pem,
    chipPrivateKeyPem: chip.privateKeyPem,
    controllerPrivateKey: controller.privateKey,
  });
  return { vendor, trust, chip, controller, challenge, context, evidenceText };
}

/**
 * The pinned vendor trust bundle and leaf chain validation.
 *
 * A valid chip leaf chains leaf -> vendor intermediate -> pinned vendor root, exactly three certificates. Validation
 * uses pkijs' CertificateChainValidationEngine, which treats the LAST certificate it is given as the end entity:
 * the leaf goes last and the returned path must start with the leaf's own bytes, otherwise a chain passed in the
 * wrong order "validates" the intermediate and never looks at the leaf.
 *
 * A new leaf of the usual chip shape skips pkijs: leaf-route.ts validates it against the bundle's paths worked out at
 * load, and answers only when pkijs would accept the same leaf with the same path; every other leaf goes to pkijs.
 */
import { createPublicKey, verify, webcrypto, type KeyObject } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { p256 } from "@noble/curves/nist.js";
import { bytesEqual, sha256, toHex } from "./encoding.js";
import { p256Spki } from "./format.js";
import { p256KeyObject, planLeafRoutes, validateLeafFast, type LeafRoutes, type ValidityWindow } from "./leaf-route.js";

export class TrustBundleError extends Error {}

export interface TrustBundle {
  readonly roots: readonly pkijs.Certificate[];
  readonly intermediates: readonly pkijs.Certificate[];
  /** Validated leaves by fingerprint; see `validateChain`. */
  readonly validated: LeafCache;
  /** The intermediate -> root part of the paths, for new leaves read by the strict reader. */
  readonly routes: LeafRoutes;
}

/** What the checks need from a validated leaf. */
export interface ChipLeaf {
  /** 65-byte uncompressed P-256 point. */
  publicKey: Uint8Array;
  /** The same key for node:crypto, imported once per validated leaf. */
  key: KeyObject;
}

export type ChainResult = { ok: true; leaf: ChipLeaf } | { ok: false; reason: string };

const OID_EC_PUBLIC_KEY = "1.2.840.10045.2.1";
const OID_P256 = "1.2.840.10045.3.1.7";
const OID_BASIC_CONSTRAINTS = "2.5.29.19";
const OID_KEY_USAGE = "2.5.29.15";
const OID_ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";

/**
 * Load a PEM bundle of the vendor's root(s) and intermediate(s). Self-signed certificates (subject equals issuer
 * and the signature verifies under their own key) are the pinned roots; the rest are intermediates and must be CAs.
 * Throws `TrustBundleError`: a bad bundle is an operator error, found at startup.
 */
export async function loadTrustBundle(pemText: string): Promise<TrustBundle> {
  const blocks = [...pemText.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) throw new TrustBundleError("trust bundle holds no certificate");
  const roots: pkijs.Certificate[] = [];
  const intermediates: pkijs.Certificate[] = [];
  for (const [, body] of blocks) {
    const cert = parseCertificate(new Uint8Array(Buffer.from(body.replace(/\s+/g, ""), "base64")));
    if (!cert) throw new TrustBundleError("trust bundle holds an unreadable certificate");
    if (!isCa(cert)) throw new TrustBundleError("trust bundle holds a certificate that is not a CA");
    (await isSelfSigned(cert) ? roots : intermediates).push(cert);
  }
  if (roots.length === 0) throw new TrustBundleError("trust bundle holds no self-signed root");
  if (intermediates.length === 0) throw new TrustBundleError("trust bundle holds no intermediate");
  nativeEcdsaEngine.rememberVerdictsFor([...roots, ...intermediates]);
  const routes = await planLeafRoutes(roots, intermediates, nativeEcdsaEngine);
  return { roots, intermediates, validated: new LeafCache(1024), routes };
}

/**
 * Validate a chip leaf against the bundle at time `at`. Never throws.
 *
 * Results are cached per leaf fingerprint together with the validity window the path allows: the outcome depends
 * only on the leaf, the bundle and the time (revocation is not evaluated), so a cached success is reused while `at`
 * stays inside that window. Failures are not cached.
 */
export async function validateChain(
  leafDer: Uint8Array,
  bundle: TrustBundle,
  at: Date,
  /** `0x` + SHA-256 of `leafDer`, when the caller has it already (the certificate fingerprint). */
  fingerprint = toHex(sha256(leafDer)),
): Promise<ChainResult> {
  const cached = bundle.validated.get(fingerprint, at.getTime());
  if (cached) return { ok: true, leaf: cached };
  try {
    const fast = validateLeafFast(leafDer, bundle.routes, at);
    const result: UncachedResult = fast
      ? { ok: true, leaf: { publicKey: fast.point, key: fast.key }, window: fast.window }
      : await validateUncached(leafDer, bundle, at);
    if (result.ok) bundle.validated.set(fingerprint, result.leaf, result.window);
    return result.ok ? { ok: true, leaf: result.leaf } : result;
  } catch (error) {
    return { ok: false, reason: `chain: ${(error as Error).message}` };
  }
}

/** `validateChain` through pkijs only, without the cache: the reference the fast path is tested against. */
export async function validateChainWithPkijs(leafDer: Uint8Array, bundle: TrustBundle, at: Date): Promise<UncachedResult> {
  try {
    return await validateUncached(leafDer, bundle, at);
  } catch (error) {
    return { ok: false, reason: `chain: ${(error as Error).message}` };
  }
}

export type UncachedResult = { ok: true; leaf: ChipLeaf; window: ValidityWindow } | { ok: false; reason: string };

async function validateUncached(leafDer: Uint8Array, bundle: TrustBundle, at: Date): Promise<UncachedResult> {
  const leaf = parseCertificate(leafDer);
  if (!leaf) return { ok: false, reason: "leaf: not a DER certificate" };
  const leafProblem = chipLeafProblem(leaf);
  if (leafProblem) return { ok: false, reason: `leaf: ${leafProblem}` };
  const publicKey = p256PublicKey(leaf);
  if (!publicKey) return { ok: false, reason: "leaf: key is not an EC P-256 point" };

  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: [...bundle.roots],
    certs: [...bundle.intermediates, leaf], // LEAF MUST BE LAST: pkijs takes the last certificate as the end entity
    checkDate: at,
  });
  const verdict = await engine.verify({}, nativeEcdsaEngine);
  // pkijs' resultCode is unreliable (-1 for several distinct failures); only `result` is branched on.
  if (!verdict.result) return { ok: false, reason: `chain: ${verdict.resultMessage || "not valid"}` };
  const path = verdict.certificatePath ?? [];
  if (path.length !== 3) return { ok: false, reason: `chain: path length ${path.length}, expected 3` };
  if (!bytesEqual(path[0].tbsView, leaf.tbsView)) return { ok: false, reason: "chain: path does not start at the leaf" };
  if (!bundle.intermediates.includes(path[1])) return { ok: false, reason: "chain: middle is not a vendor intermediate" };
  if (!bundle.roots.includes(path[2])) return { ok: false, reason: "chain: does not end at a pinned root" };
  const key = p256KeyObject(publicKey);
  return { ok: true, leaf: { publicKey, key }, window: validityWindow(path) };
}

/**
 * pkijs' default engine verifies through WebCrypto: an async key import and a thread-pool round trip per signature,
 * about 1 ms each and three per chain. This engine keeps all of pkijs' path logic and only answers ecdsa-with-SHA256
 * with a synchronous OpenSSL verify over cached keys; any other algorithm goes to the default implementation.
 *
 * Two caches keep a new leaf from paying for the bundle again:
 * - keys by the `PublicKeyInfo` object (the bundle's certificates are parsed once and reused), then by the key's DER;
 * - verdicts on signatures over the bundle's own certificates (the intermediate signed by the root, the root by
 *   itself), by the signed bytes' object and checked against the exact signed bytes, signature and issuer key. The
 *   leaf's signature is verified on every check: a new leaf's bytes are a new object and never hit.
 */
class NativeEcdsaEngine extends pkijs.CryptoEngine {
  private readonly keys = new Map<string, KeyObject>();
  private readonly keysByInfo = new WeakMap<pkijs.PublicKeyInfo, KeyObject>();
  private readonly verdicts = new WeakMap<object, SignatureVerdict>();
  private readonly bundleSignedBytes = new WeakSet<object>();

  /** Mark the signed bytes (`tbsView`) of the bundle's certificates: only their verdicts are kept. */
  rememberVerdictsFor(certs: readonly pkijs.Certificate[]): void {
    for (const cert of certs) this.bundleSignedBytes.add(cert.tbsView);
  }

  override async verifyWithPublicKey(
    data: BufferSource,
    signature: asn1js.BitString | asn1js.OctetString,
    publicKeyInfo: pkijs.PublicKeyInfo,
    signatureAlgorithm: pkijs.AlgorithmIdentifier,
    shaAlgorithm?: string,
  ): Promise<boolean> {
    if (signatureAlgorithm.algorithmId !== OID_ECDSA_WITH_SHA256 || shaAlgorithm) {
      return super.verifyWithPublicKey(data, signature, publicKeyInfo, signatureAlgorithm, shaAlgorithm);
    }
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
    const signatureBytes = signature.valueBlock.valueHexView;
    const remembered = this.bundleSignedBytes.has(data);
    if (remembered) {
      const verdict = this.verdicts.get(data);
      if (verdict && verdict.publicKeyInfo === publicKeyInfo && bytesEqual(verdict.signed, bytes)
        && bytesEqual(verdict.signature, signatureBytes)) return verdict.ok;
    }
    const ok = verify("sha256", bytes, this.keyFor(publicKeyInfo), signatureBytes);
    if (remembered) {
      this.verdicts.set(data, { publicKeyInfo, signed: bytes.slice(), signature: signatureBytes.slice(), ok });
    }
    return ok;
  }

  private keyFor(publicKeyInfo: pkijs.PublicKeyInfo): KeyObject {
    const known = this.keysByInfo.get(publicKeyInfo);
    if (known) return known;
    const der = Buffer.from(publicKeyInfo.toSchema().toBER());
    const id = der.toString("base64");
    let key = this.keys.get(id);
    if (!key) {
      key = createPublicKey({ key: der, format: "der", type: "spki" });
      // Issuer keys are the few bundle certificates; the bound only guards against a flood of self-signed leaves.
      if (this.keys.size >= 256) this.keys.clear();
      this.keys.set(id, key);
    }
    this.keysByInfo.set(publicKeyInfo, key);
    return key;
  }
}

interface SignatureVerdict {
  publicKeyInfo: pkijs.PublicKeyInfo;
  signed: Uint8Array;
  signature: Uint8Array;
  ok: boolean;
}

const nativeEcdsaEngine = new NativeEcdsaEngine({ name: "node", crypto: webcrypto as unknown as Crypto });

/** Parse one DER certificate; null when the bytes are not exactly one certificate (trailing bytes included). */
export function parseCertificate(der: Uint8Array): pkijs.Certificate | null {
  try {
    const asn1 = asn1js.fromBER(der);
    if (asn1.offset !== der.length || asn1.result.error) return null;
    return new pkijs.Certificate({ schema: asn1.result });
  } catch {
    return null;
  }
}

/** A chip leaf is an end entity: not a CA, and allowed to sign when keyUsage is present. */
function chipLeafProblem(cert: pkijs.Certificate): string | null {
  for (const extension of cert.extensions ?? []) {
    if (extension.extnID === OID_BASIC_CONSTRAINTS && (extension.parsedValue as pkijs.BasicConstraints | undefined)?.cA) {
      return "is a CA certificate";
    }
    if (extension.extnID === OID_KEY_USAGE) {
      const bits = (extension.parsedValue as asn1js.BitString | undefined)?.valueBlock.valueHexView;
      // digitalSignature is bit 0, the most significant bit of the first byte.
      if (!bits || bits.length === 0 || (bits[0] & 0x80) === 0) return "keyUsage lacks digitalSignature";
    }
  }
  return null;
}

/** The leaf's uncompressed P-256 point, when its SubjectPublicKeyInfo is the one canonical P-256 form. */
export function p256PublicKey(cert: pkijs.Certificate): Uint8Array | null {
  const spki = cert.subjectPublicKeyInfo;
  if (spki.algorithm.algorithmId !== OID_EC_PUBLIC_KEY) return null;
  const params = spki.algorithm.algorithmParams;
  if (!(params instanceof asn1js.ObjectIdentifier) || params.valueBlock.toString() !== OID_P256) return null;
  const point = new Uint8Array(spki.subjectPublicKey.valueBlock.valueHexView);
  if (point.length !== 65 || point[0] !== 0x04) return null;
  try {
    p256.Point.fromBytes(point).assertValidity();
  } catch {
    return null;
  }
  // Reject odd encodings of the same key (e.g. unused bits in the BIT STRING) by comparing with the canonical DER.
  if (!bytesEqual(new Uint8Array(spki.toSchema().toBER()), p256Spki(point))) return null;
  return point;
}

function isCa(cert: pkijs.Certificate): boolean {
  const bc = cert.extensions?.find((e) => e.extnID === OID_BASIC_CONSTRAINTS);
  return Boolean((bc?.parsedValue as pkijs.BasicConstraints | undefined)?.cA);
}

async function isSelfSigned(cert: pkijs.Certificate): Promise<boolean> {
  if (!cert.subject.isEqual(cert.issuer)) return false;
  try {
    return await cert.verify();
  } catch {
    return false;
  }
}

/** The span in which every certificate of the path is valid. */
function validityWindow(path: pkijs.Certificate[]): ValidityWindow {
  return {
    notBefore: Math.max(...path.map((c) => c.notBefore.value.getTime())),
    notAfter: Math.min(...path.map((c) => c.notAfter.value.getTime())),
  };
}

/** Bounded map of validated leaves; the oldest entry goes first when full (Map keeps insertion order). */
class LeafCache {
  private readonly entries = new Map<string, { leaf: ChipLeaf; window: ValidityWindow }>();
  constructor(private readonly capacity: number) {}

  get(fingerprint: string, atMs: number): ChipLeaf | null {
    const entry = this.entries.get(fingerprint);
    if (!entry) return null;
    return atMs >= entry.window.notBefore && atMs <= entry.window.notAfter ? entry.leaf : null;
  }

  set(fingerprint: string, leaf: ChipLeaf, window: ValidityWindow): void {
    this.entries.delete(fingerprint);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(fingerprint, { leaf, window });
  }
}

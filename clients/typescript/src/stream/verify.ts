/**
 * A stream listing checked by its buyer before paying (`cli stream verify`, buyStream): the listing's manifests and the machine's registered
 * signing keys (GET /stream/listings/:listingId/chunks) are checked with the formats library's verifyChain: each
 * manifest's shape, chunkId, signer (a key registered for the machine, the machine's own DID; a revoked key only for
 * chunks registered before its revocation, SIGNING_KEY_REVOKED otherwise) and Ed25519 signature, and the chain of
 * chunkIds; the manifests must be exactly the listing's chunks, in its order. The key a
 * manifest names in its own signature is never trusted by itself. A refusal names the check's code and the chunk
 * (a StepError; the CLI exits 1); nothing is ordered or paid.
 */
import { StreamFormatError, verifyChain, type ChunkManifest, type TrustedSigningKey } from "../../../../subgraphs/markets/stream/index.js";
import { StepError } from "../errors.js";
import type { StreamApi } from "./api.js";

export interface VerifiedListing {
  listing: { id: string; machineId: string; chunkIds: string[]; price: { amount: string; currency: string }; title?: string };
  manifests: ChunkManifest[];
  trusted: TrustedSigningKey[];
}

const REFUSALS: Record<string, string> = {
  MANIFEST_MALFORMED: "a manifest is not a peaq.stream.chunks.v1 manifest",
  CHUNK_ID_MISMATCH: "a chunkId does not match its manifest (hash altered)",
  SIGNER_UNKNOWN: "a manifest is signed by a key the machine has not registered",
  SIGNING_KEY_REVOKED: "a chunk was registered after its signing key was revoked",
  SIGNATURE_INVALID: "a manifest's signature does not verify (manifest altered)",
  CHAIN_BROKEN: "the chunks do not form one unbroken chain",
};

/** Fetches the listing and its manifests and verifies them; throws a StepError naming the failed check. */
export async function verifyListing(api: StreamApi, listingId: string): Promise<VerifiedListing> {
  const listing = (await api.call("GET", `/stream/listings/${encodeURIComponent(listingId)}`)).item;
  // The manifests page by page (the route's cursor), with the machine's signing keys (revoked keys are not trusted).
  const raw: unknown[] = [];
  const registeredAt: Array<string | null> = [];
  let body: any = {};
  let cursor: string | null = null;
  do {
    const query = `?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const answer = await api.call("GET", `/stream/listings/${encodeURIComponent(listingId)}/chunks${query}`);
    body = answer?.item ?? answer ?? {};
    const items: any[] = body.items ?? body.chunks ?? [];
    raw.push(...(body.manifests ?? items.map((c: any) => c?.manifest ?? c)));
    registeredAt.push(...items.map((c: any) => (typeof c?.registeredAt === "string" ? c.registeredAt : null)));
    cursor = body.nextCursor ?? answer?.nextCursor ?? null;
  } while (cursor);
  const machineDid: unknown = body.machineDid ?? listing.identityRef;
  if (typeof machineDid !== "string" || machineDid === "") {
    throw new StepError(`listing ${listingId} refused before payment: SIGNER_UNKNOWN: the listing names no machine identity to check its signers against`);
  }
  // The trust root is the route's list of the machine's registered keys, each for the listing's machine identity; a
  // revoked key (or one whose status is not `active` without a revocation time) vouches only for chunks registered
  // before its revocation. A manifest's own `signature` names a key ID and public key too: never trusted, only
  // checked against this list (verifyManifest), so a validly signed manifest under any other key is SIGNER_UNKNOWN.
  const trusted: TrustedSigningKey[] = (body.signingKeys ?? []).map((k: any) => ({
    machineDid,
    keyId: k.keyId,
    publicKeyHex: k.publicKeyHex,
    revokedAt: k?.status === "active" ? null : typeof k?.revokedAt === "string" ? k.revokedAt : new Date(0).toISOString(),
  }));
  let manifests: ChunkManifest[];
  try {
    manifests = verifyChain(raw, trusted, registeredAt);
  } catch (error) {
    if (!(error instanceof StreamFormatError)) throw error;
    const where = error.chunkIndex === undefined ? "" : ` at chunk ${error.chunkIndex}`;
    throw new StepError(`listing ${listingId} refused before payment: ${error.code}${where}: ${REFUSALS[error.code] ?? error.message}`);
  }
  const ids = manifests.map((m) => m.chunkId);
  const listed: string[] = listing.chunkIds ?? ids;
  if (ids.length !== listed.length || ids.some((id, i) => id !== listed[i])) {
    throw new StepError(`listing ${listingId} refused before payment: LISTING_CHUNKS_MISMATCH: the manifests are not the listing's chunks`);
  }
  return { listing: { ...listing, chunkIds: listed }, manifests, trusted };
}

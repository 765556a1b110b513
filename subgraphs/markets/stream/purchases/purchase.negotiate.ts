/**
 * Purchase input checks and delivery negotiation (public notes 3.4 POST /purchases): the buyer's X25519 key, its
 * delivery capabilities and preferences, the chunk selection against the listing, the price of the selection, and
 * the transport both sides speak.
 *
 * Negotiation: the mode must be `p2p` (the only mode of this flow; `acceptableModes` defaults to ["p2p"]); the
 * candidate transports are the seller's live capabilities whose `transportId` the buyer lists in
 * `buyer.deliveryCapabilities` (none listed: every transport the platform knows); the first of
 * `delivery.preferredTransports` among them wins, else the seller's first. None: the purchase fails with
 * DELIVERY_NO_COMMON_TRANSPORT.
 */
import { formatUnits, parseUnits } from "ethers";
import { MarketsErrors } from "../../common/errors.js";
import { fromHex } from "../encoding.js";
import { x25519, x25519KeyPair } from "../primitives.js";
import { TRANSPORT_IDS, type Capability } from "./delivery-capability.service.js";
import { PurchaseErrors } from "./purchase.errors.js";
import type { JsonObject } from "../../common/support.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const NAME = /^[A-Za-z0-9._\-/]{1,64}$/;

/** A 32-byte X25519 public key, lowercase hex, that is not of low order (its shared secret is not all zero). */
export function buyerKeyOf(value: unknown): string {
  if (!isObject(value) || (value.type !== undefined && value.type !== "x25519")) throw MarketsErrors.validation();
  const hex = value.publicKeyHex;
  const key = typeof hex === "string" && /^[0-9a-fA-F]{64}$/.test(hex) ? fromHex(hex.toLowerCase(), 32) : null;
  if (!key || x25519(x25519KeyPair().privateKey, key) === null) throw MarketsErrors.validation();
  return (hex as string).toLowerCase();
}

export interface BuyerDelivery {
  capabilities: JsonObject[];
  acceptableModes: string[];
  preferredTransports: string[];
}

/** The buyer's side of negotiation, bounded (8 capabilities, 8 modes and preferences). */
export function buyerDeliveryOf(buyer: Record<string, unknown>, delivery: unknown): BuyerDelivery {
  const caps = buyer.deliveryCapabilities ?? [];
  if (!Array.isArray(caps) || caps.length > 8) throw MarketsErrors.validation();
  const capabilities = caps.map((c) => {
    if (!isObject(c) || typeof c.transportId !== "string" || !NAME.test(c.transportId)) throw MarketsErrors.validation();
    const version = typeof c.version === "string" && NAME.test(c.version) ? c.version : null;
    const features = Array.isArray(c.features) ? c.features.filter((f): f is string => typeof f === "string" && NAME.test(f)).slice(0, 16) : [];
    return { transportId: c.transportId, version, features } as JsonObject;
  });
  if (delivery !== undefined && delivery !== null && !isObject(delivery)) throw MarketsErrors.validation();
  const d = (delivery ?? {}) as Record<string, unknown>;
  const names = (v: unknown, fallback: string[]) => {
    if (v === undefined || v === null) return fallback;
    if (!Array.isArray(v) || v.length > 8 || !v.every((s) => typeof s === "string" && NAME.test(s))) throw MarketsErrors.validation();
    return v as string[];
  };
  return { capabilities, acceptableModes: names(d.acceptableModes, ["p2p"]), preferredTransports: names(d.preferredTransports, []) };
}

/** The chosen seller capability, or null when the two sides have none in common. */
export function negotiate(seller: Capability[], buyer: BuyerDelivery): Capability | null {
  if (!buyer.acceptableModes.includes("p2p")) return null;
  const spoken = buyer.capabilities.length > 0 ? buyer.capabilities.map((c) => c.transportId as string) : TRANSPORT_IDS;
  const candidates = seller.filter((c) => spoken.includes(c.transportId));
  for (const preferred of buyer.preferredTransports) {
    const hit = candidates.find((c) => c.transportId === preferred);
    if (hit) return hit;
  }
  return candidates[0] ?? null;
}

/** The selected chunks in listing order: all of them when none are named; PURCHASE_CHUNKS_INVALID otherwise. */
export function selectionOf(listingChunks: string[], selection: unknown): string[] {
  if (selection === undefined || selection === null) return listingChunks;
  if (!isObject(selection)) throw MarketsErrors.validation();
  const ids = selection.chunkIds;
  if (ids === undefined || ids === null) return listingChunks;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > listingChunks.length || !ids.every((id) => typeof id === "string")) {
    throw PurchaseErrors.chunksInvalid();
  }
  const wanted = new Set(ids as string[]);
  if (wanted.size !== ids.length || ![...wanted].every((id) => listingChunks.includes(id))) throw PurchaseErrors.chunksInvalid();
  return listingChunks.filter((id) => wanted.has(id));
}

/**
 * The price of `count` chunks: per chunk when the listing has a per-chunk price and `count` is a strict subset, else
 * the listing's price (as stream orders).
 */
export function priceOf(listing: { priceAmount: string; pricePerChunk: string | null; chunkCount: number }, count: number): string {
  if (listing.pricePerChunk === null || count >= listing.chunkCount) return listing.priceAmount;
  const total = parseUnits(listing.pricePerChunk, 18) * BigInt(count);
  return formatUnits(total, 18).replace(/\.0$/, "");
}

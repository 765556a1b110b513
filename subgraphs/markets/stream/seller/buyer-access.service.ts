/**
 * Buyer access entries uploaded by a seller's agent (public notes 3.3: POST /stream/buyer-access, GET
 * /stream/chunks/:chunkId/buyer-access?buyerId=). The server cannot check the key commitment (it never has the key):
 * it checks the entry's exact shape (ACCESS_MALFORMED) and that the chunk is a registered chunk of the agent's machine
 * (NOT_FOUND). One entry per (chunk, buyer, buyer key): the same entry again answers it (200); a re-wrap of the same
 * key (sealed boxes differ each time) replaces the wrapped key (200) with a `stream.buyer-access.updated` event.
 */
import { randomBytes } from "node:crypto";
import type { StreamBuyerAccess } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import { CHUNK_ID } from "./chunk.service.js";
import { fromFormatError } from "./seller.errors.js";
import { ACCESS_SCHEMA, type BuyerAccess } from "../access.js";
import { StreamFormatError } from "../errors.js";
import { KEY_WRAP } from "../manifest.js";
import type { MarketsStore } from "../../common/store.js";

export interface BuyerAccessView {
  id: string;
  chunkId: string;
  machineId: string;
  buyerId: string;
  publicKeyHex: string;
  orderId: string | null;
  purchaseId: string | null;
  access: BuyerAccess;
  createdAt: string;
}

export const buyerAccessView = (row: StreamBuyerAccess): BuyerAccessView => ({
  id: row.id,
  chunkId: row.chunkId,
  machineId: row.machineId,
  buyerId: row.buyerId,
  publicKeyHex: row.publicKeyHex,
  orderId: row.orderId,
  purchaseId: row.purchaseId,
  access: row.access as unknown as BuyerAccess,
  createdAt: row.createdAt.toISOString(),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const only = (v: Record<string, unknown>, keys: string[]) => Object.keys(v).length === keys.length && keys.every((k) => k in v);

/** The exact shape of peaq.stream.buyer-access.v1 (lowercase hex, 32-byte key, 80-byte sealed key). */
export function parseBuyerAccess(value: unknown): BuyerAccess {
  const a = value as Record<string, unknown>;
  const b = isObject(a) ? (a.buyer as Record<string, unknown>) : undefined;
  const ok = isObject(a) && only(a, ["schemaVersion", "chunkId", "buyer"]) && a.schemaVersion === ACCESS_SCHEMA
    && typeof a.chunkId === "string" && CHUNK_ID.test(a.chunkId) && isObject(b)
    && only(b, ["recipientId", "recipientType", "algorithm", "publicKeyHex", "wrappedKeyHex"])
    && typeof b.recipientId === "string" && b.recipientId.length > 0 && b.recipientId.length <= 200
    && b.recipientType === "buyer" && b.algorithm === KEY_WRAP
    && typeof b.publicKeyHex === "string" && /^[0-9a-f]{64}$/.test(b.publicKeyHex)
    && typeof b.wrappedKeyHex === "string" && /^[0-9a-f]{160}$/.test(b.wrappedKeyHex);
  if (!ok) throw fromFormatError(new StreamFormatError("ACCESS_MALFORMED", "not a peaq.stream.buyer-access.v1 entry"));
  return value as BuyerAccess;
}

export class StreamBuyerAccessService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  async upload(machineId: string, credentials: AgentCredentials, value: unknown): Promise<{ created: boolean; access: BuyerAccessView }> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      const access = parseBuyerAccess(value);
      const chunk = await tx.streamChunk.findUnique({ where: { chunkId: access.chunkId } });
      if (!chunk || chunk.machineId !== machineId) throw MarketsErrors.notFound();
      const { recipientId: buyerId, publicKeyHex, wrappedKeyHex } = access.buyer;
      const where = { chunkId_buyerId_publicKeyHex: { chunkId: chunk.chunkId, buyerId, publicKeyHex } };
      const existing = await tx.streamBuyerAccess.findUnique({ where });
      if (existing?.wrappedKeyHex === wrappedKeyHex) return { created: false, access: buyerAccessView(existing) };
      const now = new Date(this.clock.now());
      const row = existing
        ? await tx.streamBuyerAccess.update({ where, data: { wrappedKeyHex, access: access as never } })
        : await tx.streamBuyerAccess.create({
            data: {
              id: `sacc_${randomBytes(12).toString("hex")}`,
              chunkId: chunk.chunkId,
              machineId,
              buyerId,
              publicKeyHex,
              wrappedKeyHex,
              access: access as never,
              createdAt: now,
            },
          });
      await recordAuditEvent(tx, {
        kind: existing ? "stream.buyer-access.updated" : "stream.buyer-access.created",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { accessId: row.id, chunkId: row.chunkId, buyerId, publicKeyHex },
      });
      return { created: !existing, access: buyerAccessView(row) };
    });
  }

  /** The entries of one chunk for one buyer (NOT_FOUND for an unknown chunk); at most 100 (one per buyer key). */
  async forBuyer(chunkId: string, buyerId: string): Promise<BuyerAccessView[]> {
    if (buyerId.length === 0 || buyerId.length > 200) throw MarketsErrors.validation();
    return this.store.read(async (prisma) => {
      const chunk = CHUNK_ID.test(chunkId) ? await prisma.streamChunk.findUnique({ where: { chunkId } }) : null;
      if (!chunk) throw MarketsErrors.notFound();
      const rows = await prisma.streamBuyerAccess.findMany({ where: { chunkId, buyerId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 100 });
      return rows.map(buyerAccessView);
    });
  }
}

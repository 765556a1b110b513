/**
 * Stream listings (public notes 3.2; docs/stream-marketplace.md): an ordered set of a machine's stored chunks for
 * sale. Create checks every chunk exists, belongs to the machine (NOT_FOUND otherwise: another machine's chunk is not
 * named) and is stored (CHUNK_NOT_STORED); chunkCount, totalBytes and storageProvider (the scheme of the chunks'
 * storage references) are computed, never taken from the caller. Each listing is advertised in the service catalogue
 * as a `data.stream` service with skill `stream-data-listing` (the skill row is seeded when missing), in the same
 * transaction as the listing and its `stream.listing.created` audit event.
 *
 * `pricePerChunk` (optional, a decimal like the price, in the price's currency) is what each chunk of a strict
 * subset costs (orders and purchases); `timeStart` / `timeEnd` are the earliest start and latest end of the chunks'
 * times (chunk.service.ts `chunkTimes`), computed in the statement that creates the listing: a listing's chunks are
 * fixed at creation, so the range never changes afterwards.
 *
 * Withdrawal (the machine's agent): deactivate sets `inactive` and removes the catalogue entry; reactivate sets
 * `active` and puts the entry back; each with its audit event in the same transaction, under the listing's row lock
 * (FOR UPDATE), which waits for the orders and purchases being created on it (listing.lock.ts takes a share lock).
 * Repeating either answers the listing unchanged (no event). Inactive listings are refused by orders and purchases
 * (STREAM_LISTING_INACTIVE, PURCHASE_LISTING_INACTIVE) and left out of `list` unless `includeInactive`.
 *
 * Reads never carry plaintext nor keys: a listing is its metadata; its chunks are their signed manifests (wrapped
 * keys only), when each was registered, and the machine's signing keys, for checking before buying.
 */
import { randomBytes } from "node:crypto";
import type { StreamListing } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { pageRequest, createdAtKeyset, createdAtPage } from "../../common/pagination.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import { CHUNK_ID, chunkTimes } from "./chunk.service.js";
import { timeRangeOf } from "../../common/time-range.filter.js";
import { StreamErrors } from "./seller.errors.js";
import { listingService, STREAM_SKILL } from "./listing.catalogue.js";
import { signingKeyView, type SigningKeyView } from "./signing-key.service.js";
import type { MarketsStore } from "../../common/store.js";

export const MAX_LISTING_CHUNKS = 10_000;
const AMOUNT = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;
const CURRENCY = /^[A-Za-z0-9]{1,16}$/;
const LISTING_ID = /^slst_[0-9a-f]{24}$/;
const PROVIDER = /^[a-z][a-z0-9+.-]{0,31}$/;

export interface CreateListingInput {
  title: string;
  chunkIds: string[];
  price: { amount: string; currency: string };
  topic?: string | null;
  pricePerChunk?: string | null;
}

export interface ListingFilter {
  machineId?: string | null;
  storageProvider?: string | null;
  includeInactive?: boolean | null;
  /** Listings whose time range overlaps [from, to] (ISO 8601 instants; either may be omitted). */
  from?: string | null;
  to?: string | null;
}

export interface ListingView {
  id: string;
  machineId: string;
  identityRef: string | null;
  title: string;
  topic: string | null;
  chunkIds: string[];
  chunkCount: number;
  totalBytes: number;
  storageProvider: string;
  price: { amount: string; currency: string };
  pricePerChunk: string | null;
  timeStart: string | null;
  timeEnd: string | null;
  status: string;
  serviceId: string | null;
  createdAt: string;
  updatedAt: string;
}

export const listingView = (row: StreamListing): ListingView => ({
  id: row.id,
  machineId: row.machineId,
  identityRef: row.identityRef,
  title: row.title,
  topic: row.topic,
  chunkIds: row.chunkIds,
  chunkCount: row.chunkCount,
  totalBytes: Number(row.totalBytes),
  storageProvider: row.storageProvider,
  price: { amount: row.priceAmount, currency: row.priceCurrency },
  pricePerChunk: row.pricePerChunk,
  timeStart: row.timeStart?.toISOString() ?? null,
  timeEnd: row.timeEnd?.toISOString() ?? null,
  status: row.status,
  serviceId: row.serviceId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export interface ListingChunksPage {
  listingId: string;
  machineId: string;
  machineDid: string | null;
  signingKeys: SigningKeyView[];
  items: Array<{ chunkId: string; index: number; encryptedSize: number; registeredAt: string; manifest: Record<string, unknown> }>;
  nextCursor: string | null;
}

export class StreamListingService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  async create(machineId: string, credentials: AgentCredentials, input: CreateListingInput): Promise<ListingView> {
    return this.store.write(async (tx) => {
      const { agent, machine } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      const { title, chunkIds, price } = input;
      const topic = input.topic ?? null;
      const pricePerChunk = input.pricePerChunk ?? null;
      const valid = title.trim().length > 0 && title.length <= 200 && (topic === null || (topic.length > 0 && topic.length <= 256))
        && chunkIds.length > 0 && chunkIds.length <= MAX_LISTING_CHUNKS && new Set(chunkIds).size === chunkIds.length
        && chunkIds.every((id) => CHUNK_ID.test(id)) && AMOUNT.test(price.amount) && CURRENCY.test(price.currency)
        && (pricePerChunk === null || AMOUNT.test(pricePerChunk));
      if (!valid) throw MarketsErrors.validation();
      const rows = await tx.streamChunk.findMany({ where: { chunkId: { in: chunkIds }, machineId } });
      if (rows.length !== chunkIds.length) throw MarketsErrors.notFound();
      if (rows.some((row) => row.storageRef === null || row.storedVerifiedAt === null)) throw StreamErrors.chunkNotStored();
      const schemes = new Set(rows.map((row) => /^([a-z][a-z0-9+.-]*):/.exec(row.storageRef!)?.[1] ?? ""));
      const storageProvider = schemes.size === 1 ? [...schemes][0]! : "mixed";
      const totalBytes = rows.reduce((sum, row) => sum + row.encryptedSize, 0n);
      const times = rows.map((row) => chunkTimes(row.metadata, row.createdAt)!);
      const timeStart = new Date(Math.min(...times.map((t) => t.start.getTime())));
      const timeEnd = new Date(Math.max(...times.map((t) => t.end.getTime())));
      const now = new Date(this.clock.now());
      const id = `slst_${randomBytes(12).toString("hex")}`;
      const service = listingService(id, machineId, {
        title, topic, chunkCount: chunkIds.length, totalBytes: Number(totalBytes), storageProvider, price, pricePerChunk, timeStart, timeEnd,
      });
      await tx.marketsSkill.createMany({ data: [STREAM_SKILL], skipDuplicates: true });
      await tx.marketsService.create({ data: { ...service, record: service.record as never } });
      const row = await tx.streamListing.create({
        data: {
          id,
          machineId,
          identityRef: machine.identityRef,
          title,
          topic,
          chunkIds,
          chunkCount: chunkIds.length,
          totalBytes,
          storageProvider,
          priceAmount: price.amount,
          priceCurrency: price.currency.toUpperCase(),
          pricePerChunk,
          timeStart,
          timeEnd,
          status: "active",
          serviceId: service.id,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.listing.created",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { listingId: id, serviceId: service.id, chunkCount: chunkIds.length, totalBytes: Number(totalBytes), pricePerChunk },
      });
      return listingView(row);
    });
  }

  /** `active` false deactivates, true reactivates (see the header). */
  async setActive(machineId: string, credentials: AgentCredentials, listingId: string, active: boolean): Promise<ListingView> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      if (!LISTING_ID.test(listingId)) throw MarketsErrors.notFound();
      await tx.$executeRaw`SELECT 1 FROM stream_listing WHERE id = ${listingId} FOR UPDATE`;
      const row = await tx.streamListing.findUnique({ where: { id: listingId } });
      if (!row || row.machineId !== machineId) throw MarketsErrors.notFound();
      const status = active ? "active" : "inactive";
      if (row.status === status) return listingView(row);
      const now = new Date(this.clock.now());
      const serviceId = row.serviceId ?? `svc_stream_${row.id}`;
      if (active) {
        const service = listingService(row.id, machineId, {
          title: row.title, topic: row.topic, chunkCount: row.chunkCount, totalBytes: Number(row.totalBytes), storageProvider: row.storageProvider,
          price: { amount: row.priceAmount, currency: row.priceCurrency }, pricePerChunk: row.pricePerChunk, timeStart: row.timeStart, timeEnd: row.timeEnd,
        });
        await tx.marketsSkill.createMany({ data: [STREAM_SKILL], skipDuplicates: true });
        await tx.marketsService.createMany({ data: [{ ...service, record: service.record as never }], skipDuplicates: true });
      } else {
        await tx.marketsService.deleteMany({ where: { id: serviceId } });
      }
      const updated = await tx.streamListing.update({ where: { id: listingId }, data: { status, serviceId, updatedAt: now } });
      await recordAuditEvent(tx, {
        kind: active ? "stream.listing.reactivated" : "stream.listing.deactivated",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { listingId, serviceId, before: { status: row.status }, after: { status } },
      });
      return listingView(updated);
    });
  }

  async list(
    filter: ListingFilter,
    limit: number | null | undefined,
    cursor: string | null | undefined,
  ): Promise<{ items: ListingView[]; nextCursor: string | null }> {
    const page = pageRequest(limit, cursor, 2);
    const keyset = createdAtKeyset(page);
    if (filter.storageProvider != null && !PROVIDER.test(filter.storageProvider)) throw MarketsErrors.validation();
    const { from, to } = timeRangeOf(filter.from, filter.to);
    const rows = await this.store.read(async (prisma) => {
      if (filter.machineId != null) await this.store.requireActiveMachine(prisma, filter.machineId);
      return prisma.streamListing.findMany({
        where: {
          ...(filter.machineId != null ? { machineId: filter.machineId } : {}),
          ...(filter.storageProvider != null ? { storageProvider: filter.storageProvider } : {}),
          ...(filter.includeInactive ? {} : { status: "active" }),
          // Overlap with [from, to]; a listing without a time range never matches a time filter.
          ...(from !== null ? { timeEnd: { gte: from } } : {}),
          ...(to !== null ? { timeStart: { lte: to } } : {}),
          ...keyset.where,
        },
        orderBy: keyset.orderBy,
        take: keyset.take,
      });
    });
    const { items, nextCursor } = createdAtPage(rows, page);
    return { items: items.map(listingView), nextCursor };
  }

  async get(listingId: string): Promise<ListingView> {
    return listingView(await this.store.read((prisma) => findListing(prisma, listingId)));
  }

  /** The listing's manifests in listing order (keyset on the position) and the machine's signing keys. */
  async chunks(listingId: string, limit: number | null | undefined, cursor: string | null | undefined): Promise<ListingChunksPage> {
    const page = pageRequest(limit, cursor, 1);
    const start = page.after ? Number(page.after[0]) : 0;
    if (!Number.isSafeInteger(start) || start < 0 || String(start) !== (page.after?.[0] ?? "0")) throw MarketsErrors.validation();
    return this.store.read(async (prisma) => {
      const listing = await findListing(prisma, listingId);
      const ids = listing.chunkIds.slice(start, start + page.limit);
      const rows = await prisma.streamChunk.findMany({ where: { chunkId: { in: ids } } });
      const byId = new Map(rows.map((row) => [row.chunkId, row]));
      const keys = await prisma.streamSigningKey.findMany({ where: { machineId: listing.machineId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      const end = start + ids.length;
      return {
        listingId: listing.id,
        machineId: listing.machineId,
        machineDid: listing.identityRef,
        signingKeys: keys.map(signingKeyView),
        items: ids.map((id) => {
          const row = byId.get(id)!;
          return {
            chunkId: id, index: row.index, encryptedSize: Number(row.encryptedSize), registeredAt: row.createdAt.toISOString(),
            manifest: row.manifest as Record<string, unknown>,
          };
        }),
        nextCursor: end < listing.chunkIds.length ? Buffer.from(JSON.stringify([String(end)])).toString("base64url") : null,
      };
    });
  }
}

async function findListing(db: MarketsTx, listingId: string): Promise<StreamListing> {
  const row = LISTING_ID.test(listingId) ? await db.streamListing.findUnique({ where: { id: listingId } }) : null;
  if (!row) throw MarketsErrors.notFound();
  return row;
}

/**
 * Chunk manifests and their ciphertext (public notes 3.3 POST /stream/chunks; docs/stream-marketplace.md).
 *
 * Register: the manifest is verified with the formats library (exact shape, chunkId recomputed, signer among the
 * machine's active registered keys with machineDid = the machine's identityRef, Ed25519 signature) and its chain link
 * checked here: index 0 has no previousChunkId; index > 0 names a registered chunk of the SAME machine at index - 1
 * (CHAIN_BROKEN otherwise). The manifest's own `storageRef` (not signed) is kept in the manifest but never trusted:
 * the chunk's storageRef is set only by a checked upload.
 *
 * Upload (PUT /stream/chunks/:chunkId/data, a shim-side raw route): `uploadTarget` authorises the agent and names a
 * fresh object key; the shim streams the body into the local driver there; `commitData` re-reads the object, checks
 * size and SHA-256 against the manifest (the object is deleted on a mismatch) and records the storageRef. The first
 * checked upload wins; a later one answers the stored chunk and its object is removed.
 *
 * Download (GET /stream/chunks/:chunkId/data): `download` checks the bearer delivery token's scope and answers where
 * the ciphertext is; the shim streams it (with Range).
 */
import { createHash, randomBytes } from "node:crypto";
import type { StreamChunk } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import type { DeliveryTokens } from "./delivery.token.js";
import { formatCheck, fromFormatError, StreamErrors } from "./seller.errors.js";
import { trustedKeys } from "./signing-key.service.js";
import { canonicalBytes } from "../encoding.js";
import { StorageError, type ChunkStorageDriver } from "../storage/driver.js";
import { verifyManifest } from "../verify.js";
import { StreamFormatError } from "../errors.js";
import type { MarketsStore } from "../../common/store.js";
import { instantOf } from "../../common/time-range.filter.js";

export const CHUNK_ID = /^sha256:[0-9a-f]{64}$/;
export const UPLOAD_BUCKET = "chunks";
const MAX_METADATA_BYTES = 8192;

export interface ChunkView {
  chunkId: string;
  machineId: string;
  agentId: string;
  keyId: string;
  index: number;
  previousChunkId: string | null;
  plaintextHash: string;
  encryptedDataHash: string;
  encryptedSize: number;
  storageRef: string | null;
  stored: boolean;
  storedVerifiedAt: string | null;
  manifest: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

export const chunkView = (row: StreamChunk): ChunkView => ({
  chunkId: row.chunkId,
  machineId: row.machineId,
  agentId: row.agentId,
  keyId: row.keyId,
  index: row.index,
  previousChunkId: row.previousChunkId,
  plaintextHash: row.plaintextHash,
  encryptedDataHash: row.encryptedDataHash,
  encryptedSize: Number(row.encryptedSize),
  storageRef: row.storageRef,
  stored: row.storedVerifiedAt !== null,
  storedVerifiedAt: row.storedVerifiedAt?.toISOString() ?? null,
  manifest: row.manifest as Record<string, unknown>,
  metadata: (row.metadata as Record<string, unknown> | null) ?? null,
  createdAt: row.createdAt.toISOString(),
});

export interface UploadTarget {
  chunkId: string;
  machineId: string;
  bucket: string;
  key: string;
  encryptedSize: number;
  encryptedDataHash: string;
}

export interface DownloadTarget {
  chunkId: string;
  storageRef: string;
  encryptedSize: number;
  encryptedDataHash: string;
}

const sameJson = (a: unknown, b: unknown) => Buffer.from(canonicalBytes(a)).equals(Buffer.from(canonicalBytes(b)));

export class StreamChunkService {
  constructor(
    private readonly store: MarketsStore,
    private readonly storage: ChunkStorageDriver,
    private readonly tokens: DeliveryTokens,
    private readonly clock: Clock,
  ) {}

  async register(
    machineId: string,
    credentials: AgentCredentials,
    manifestInput: unknown,
    metadata: Record<string, unknown> | null | undefined,
  ): Promise<{ created: boolean; chunk: ChunkView }> {
    return this.store.write(async (tx) => {
      const { agent, machine } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      if (metadata != null && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw MarketsErrors.validation();
      const trusted = await trustedKeys(tx, machine);
      // A chunk registered before its key's revocation stays valid (the same manifest again answers it); a new one is
      // checked as registered now, so a revoked signer is SIGNING_KEY_REVOKED.
      const claimed = (manifestInput as { chunkId?: unknown } | null)?.chunkId;
      const known = typeof claimed === "string" && CHUNK_ID.test(claimed) ? await tx.streamChunk.findUnique({ where: { chunkId: claimed } }) : null;
      const registeredAt = (known?.machineId === machineId ? known.createdAt : new Date(this.clock.now())).toISOString();
      const manifest = formatCheck(() => verifyManifest(manifestInput, trusted, undefined, registeredAt));
      chunkTimes(metadata);
      const existing = manifest.chunkId === claimed ? known : await tx.streamChunk.findUnique({ where: { chunkId: manifest.chunkId } });
      if (existing) {
        if (existing.machineId !== machineId || !sameJson(existing.manifest, manifest) || !sameJson(existing.metadata ?? null, metadata ?? null)) {
          throw StreamErrors.chunkExists();
        }
        return { created: false, chunk: chunkView(existing) };
      }
      if (manifest.index === 0 ? manifest.previousChunkId !== null : manifest.previousChunkId === null) throw chainBroken();
      if (manifest.previousChunkId !== null) {
        const previous = await tx.streamChunk.findUnique({ where: { chunkId: manifest.previousChunkId } });
        if (!previous || previous.machineId !== machineId || previous.index !== manifest.index - 1) throw chainBroken();
      }
      const now = new Date(this.clock.now());
      const row = await tx.streamChunk.create({
        data: {
          chunkId: manifest.chunkId,
          machineId,
          agentId: agent.id,
          keyId: manifest.signature.keyId,
          index: manifest.index,
          previousChunkId: manifest.previousChunkId,
          plaintextHash: manifest.plaintextHash,
          encryptedDataHash: manifest.encryptedDataHash,
          encryptedSize: BigInt(manifest.encryptedSize),
          manifest: manifest as never,
          metadata: (metadata ?? undefined) as never,
          createdAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.chunk.registered",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { chunkId: row.chunkId, index: row.index, encryptedSize: manifest.encryptedSize },
      });
      return { created: true, chunk: chunkView(row) };
    });
  }

  /** Authorises an upload: the chunk's machine's agent; a fresh key under `chunks/<machineId>/<chunk hex>/`. */
  async uploadTarget(chunkId: string, credentials: AgentCredentials): Promise<UploadTarget> {
    const chunk = await this.authorisedChunk(chunkId, credentials);
    return {
      chunkId,
      machineId: chunk.machineId,
      bucket: UPLOAD_BUCKET,
      key: `${chunk.machineId}/${chunkId.slice(7)}/${randomBytes(12).toString("hex")}`,
      encryptedSize: Number(chunk.encryptedSize),
      encryptedDataHash: chunk.encryptedDataHash,
    };
  }

  /**
   * Records an uploaded object as the chunk's ciphertext after re-reading it: size (CIPHERTEXT_SIZE_MISMATCH) and
   * SHA-256 (CIPHERTEXT_HASH_MISMATCH) against the manifest; a refused object is deleted.
   */
  async commitData(chunkId: string, credentials: AgentCredentials, storageRef: string): Promise<ChunkView> {
    const chunk = await this.authorisedChunk(chunkId, credentials);
    const prefix = `${this.storage.scheme}:${UPLOAD_BUCKET}/${chunk.machineId}/${chunkId.slice(7)}/`;
    if (!storageRef.startsWith(prefix) || !/^[0-9a-f]{24}$/.test(storageRef.slice(prefix.length))) throw MarketsErrors.validation();
    const { size, sha256 } = await this.digest(storageRef);
    if (size !== Number(chunk.encryptedSize) || sha256 !== chunk.encryptedDataHash) {
      await this.storage.delete(storageRef);
      if (size !== Number(chunk.encryptedSize)) throw StreamErrors.ciphertextSizeMismatch();
      throw fromFormatError(new StreamFormatError("CIPHERTEXT_HASH_MISMATCH", "upload"));
    }
    const now = new Date(this.clock.now());
    const row = await this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, chunk.machineId, credentials);
      const updated = await tx.streamChunk.updateMany({
        where: { chunkId, storageRef: null },
        data: { storageRef, storedVerifiedAt: now },
      });
      if (updated.count === 1) {
        await recordAuditEvent(tx, {
          kind: "stream.chunk.stored",
          machineId: chunk.machineId,
          actor: { type: "machine-agent", id: agent.id },
          occurredAt: now,
          data: { chunkId, storageRef, encryptedSize: size },
        });
      }
      return tx.streamChunk.findUniqueOrThrow({ where: { chunkId } });
    });
    if (row.storageRef !== storageRef) await this.storage.delete(storageRef);
    return chunkView(row);
  }

  /** Where a chunk's ciphertext is, for the holder of a delivery token covering it. */
  async download(chunkId: string, deliveryToken: string | null | undefined): Promise<DownloadTarget> {
    await this.tokens.authorize(deliveryToken, chunkId, this.clock.now());
    const chunk = CHUNK_ID.test(chunkId) ? await this.store.read((prisma) => prisma.streamChunk.findUnique({ where: { chunkId } })) : null;
    if (!chunk) throw MarketsErrors.notFound();
    if (chunk.storageRef === null || chunk.storedVerifiedAt === null) throw StreamErrors.chunkNotStored();
    return { chunkId, storageRef: chunk.storageRef, encryptedSize: Number(chunk.encryptedSize), encryptedDataHash: chunk.encryptedDataHash };
  }

  /** A chunk by ID for anyone (its manifest is public: buyers check it before buying). */
  async get(chunkId: string): Promise<ChunkView> {
    const chunk = CHUNK_ID.test(chunkId) ? await this.store.read((prisma) => prisma.streamChunk.findUnique({ where: { chunkId } })) : null;
    if (!chunk) throw MarketsErrors.notFound();
    return chunkView(chunk);
  }

  /** Credentials present first (AGENT_AUTH_REQUIRED), then the chunk (NOT_FOUND), then the agent for its machine. */
  private async authorisedChunk(chunkId: string, credentials: AgentCredentials): Promise<StreamChunk> {
    if (!credentials.agentId || !credentials.agentToken) throw MarketsErrors.agentAuthRequired();
    return this.store.read(async (prisma) => {
      const chunk = CHUNK_ID.test(chunkId) ? await prisma.streamChunk.findUnique({ where: { chunkId } }) : null;
      if (!chunk) throw MarketsErrors.notFound();
      await authenticateStreamAgent(this.store, prisma, chunk.machineId, credentials);
      return chunk;
    });
  }

  private async digest(storageRef: string): Promise<{ size: number; sha256: string }> {
    try {
      const read = await this.storage.get(storageRef);
      const hash = createHash("sha256");
      let size = 0;
      for await (const part of read.body) {
        size += (part as Buffer).length;
        hash.update(part as Buffer);
      }
      return { size, sha256: `sha256:${hash.digest("hex")}` };
    } catch (error) {
      if (error instanceof StorageError && error.code === "STORAGE_NOT_FOUND") throw MarketsErrors.notFound();
      throw error;
    }
  }
}

/**
 * A chunk's time range: the optional `timeStart` / `timeEnd` members of its metadata (ISO 8601 instants, start not
 * after end; VALIDATION_ERROR otherwise), else its registration time. Listings carry the range of their chunks.
 */
export function chunkTimes(metadata: unknown, registeredAt?: Date): { start: Date; end: Date } | null {
  const meta = (metadata ?? {}) as Record<string, unknown>;
  const start = meta.timeStart === undefined ? undefined : instantOf(meta.timeStart);
  const end = meta.timeEnd === undefined ? undefined : instantOf(meta.timeEnd);
  if (start === null || end === null) throw MarketsErrors.validation();
  const from = start ?? end ?? registeredAt;
  const to = end ?? start ?? registeredAt;
  if (from !== undefined && to !== undefined && from.getTime() > to.getTime()) throw MarketsErrors.validation();
  return from !== undefined && to !== undefined ? { start: from, end: to } : null;
}

const chainBroken = () => fromFormatError(new StreamFormatError("CHAIN_BROKEN", "previous chunk not registered"));

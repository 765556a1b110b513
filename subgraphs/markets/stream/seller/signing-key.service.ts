/**
 * Ed25519 signing keys of a machine's stream agent (public notes 3.3, POST /machines/:machineId/stream/signing-keys):
 * `keyId` unique per machine; the same keyId with the same key again answers the existing key (created false), with
 * another key SIGNING_KEY_EXISTS. Envelopes verify against the machine's ACTIVE keys, with the machine's identityRef
 * as the signer's `machineDid`; manifests against every key, a revoked one only for chunks registered before its
 * `revokedAt` (verify.ts), so a new chunk under a revoked key is SIGNING_KEY_REVOKED.
 *
 * Revoke (POST /machines/:machineId/stream/signing-keys/:keyId/revoke, the machine's agent): status `revoked` and
 * `revokedAt` = now, with a `stream.signing-key.revoked` audit event in the same transaction; revoking a revoked key
 * answers it unchanged (no event). Chunks registered before stay valid; a revoked keyId cannot be registered again.
 */
import { randomBytes } from "node:crypto";
import type { MarketMachine, StreamSigningKey } from "../../../shared/db/generated/client.js";
import type { Clock } from "../../../shared/clock.js";
import { recordAuditEvent, type MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { authenticateStreamAgent, type AgentCredentials } from "./agent.auth.js";
import { StreamErrors } from "./seller.errors.js";
import type { TrustedSigningKey } from "../verify.js";
import type { MarketsStore } from "../../common/store.js";

export const KEY_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const PUBLIC_KEY_HEX = /^[0-9a-f]{64}$/;

export interface SigningKeyView {
  id: string;
  machineId: string;
  agentId: string;
  keyId: string;
  algorithm: "ed25519";
  publicKeyHex: string;
  status: string;
  revokedAt: string | null;
  createdAt: string;
}

export const signingKeyView = (row: StreamSigningKey): SigningKeyView => ({
  id: row.id,
  machineId: row.machineId,
  agentId: row.agentId,
  keyId: row.keyId,
  algorithm: "ed25519",
  publicKeyHex: row.publicKeyHex,
  status: row.status,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

/** The machine's keys (revoked ones with `revokedAt`) as the formats library's trusted set (machineDid = identityRef). */
export async function trustedKeys(tx: MarketsTx, machine: Pick<MarketMachine, "id" | "identityRef">): Promise<TrustedSigningKey[]> {
  const rows = await tx.streamSigningKey.findMany({ where: { machineId: machine.id } });
  return rows.map((row) => ({ machineDid: machine.identityRef ?? "", keyId: row.keyId, publicKeyHex: row.publicKeyHex, revokedAt: row.revokedAt?.toISOString() ?? null }));
}

export class StreamSigningKeyService {
  constructor(
    private readonly store: MarketsStore,
    private readonly clock: Clock,
  ) {}

  async register(
    machineId: string,
    credentials: AgentCredentials,
    input: { keyId: string; publicKeyHex: string },
  ): Promise<{ created: boolean; key: SigningKeyView }> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      if (!KEY_ID.test(input.keyId) || !PUBLIC_KEY_HEX.test(input.publicKeyHex)) throw MarketsErrors.validation();
      const existing = await tx.streamSigningKey.findUnique({ where: { machineId_keyId: { machineId, keyId: input.keyId } } });
      if (existing) {
        if (existing.publicKeyHex !== input.publicKeyHex || existing.status !== "active") throw StreamErrors.signingKeyExists();
        return { created: false, key: signingKeyView(existing) };
      }
      const now = new Date(this.clock.now());
      const row = await tx.streamSigningKey.create({
        data: {
          id: `skey_${randomBytes(12).toString("hex")}`,
          machineId,
          agentId: agent.id,
          keyId: input.keyId,
          publicKeyHex: input.publicKeyHex,
          status: "active",
          createdAt: now,
        },
      });
      await recordAuditEvent(tx, {
        kind: "stream.signing-key.registered",
        machineId,
        actor: { type: "machine-agent", id: agent.id },
        occurredAt: now,
        data: { keyId: row.keyId, publicKeyHex: row.publicKeyHex },
      });
      return { created: true, key: signingKeyView(row) };
    });
  }

  /** Revokes the machine's key `keyId` (NOT_FOUND when the machine has none); idempotent. */
  async revoke(machineId: string, credentials: AgentCredentials, keyId: string): Promise<SigningKeyView> {
    return this.store.write(async (tx) => {
      const { agent } = await authenticateStreamAgent(this.store, tx, machineId, credentials);
      if (!KEY_ID.test(keyId)) throw MarketsErrors.notFound();
      const now = new Date(this.clock.now());
      // One statement decides the transition, so two concurrent revocations write one event.
      const changed = await tx.streamSigningKey.updateMany({ where: { machineId, keyId, status: "active" }, data: { status: "revoked", revokedAt: now } });
      const row = await tx.streamSigningKey.findUnique({ where: { machineId_keyId: { machineId, keyId } } });
      if (!row) throw MarketsErrors.notFound();
      if (changed.count === 1) {
        await recordAuditEvent(tx, {
          kind: "stream.signing-key.revoked",
          machineId,
          actor: { type: "machine-agent", id: agent.id },
          occurredAt: now,
          data: { keyId, publicKeyHex: row.publicKeyHex, revokedAt: now.toISOString(), before: { status: "active" }, after: { status: "revoked" } },
        });
      }
      return signingKeyView(row);
    });
  }

  /** Every key of the machine (active and revoked), oldest first: what a buyer checks manifests against. */
  async list(tx: MarketsTx, machineId: string): Promise<SigningKeyView[]> {
    const rows = await tx.streamSigningKey.findMany({ where: { machineId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return rows.map(signingKeyView);
  }
}

/**
 * Authentication 3 (document 3): the agent behind a market write, from its pairing token, inside the write's
 * transaction. The token's own checks (present, signature, expiry) come first; then the pairing, locked: unknown or
 * another session -> AGENT_AUTH_INVALID; paused or revoked -> AGENT_PAIRING_INACTIVE; stored policy hash differs ->
 * AGENT_AUTH_INVALID; paired with another machine than the write's -> AGENT_PAIRING_REQUIRED (409). The pairing
 * service (orders/pairing.service.ts) extends this class, so every caller asks the pairings.
 */
import type { Clock } from "../../shared/clock.js";
import type { MarketAgentPairing as PairingRow, MarketMachine } from "../../shared/db/generated/client.js";
import type { AuditActor } from "../common/audit.repository.js";
import { MarketsErrors } from "../common/errors.js";
import type { MarketsSql } from "../common/sql.js";
import type { MarketsStore } from "../common/store.js";
import { lockOrderWrite, ORDER_ID, type OrderRow, type OrderWriteRows } from "./order.repository.js";
import type { DelegationPolicy } from "./pairing.policy.js";
import { lockPairing } from "./pairing.repository.js";
import type { PairingClaims, PairingTokens } from "./pairing.token.js";

export const PAIRING_ID = /^pair_[a-z2-7]{16}$/;

/** A verified market write: the pairing behind the token. */
export interface AgentSession {
  pairing: PairingRow;
  policy: DelegationPolicy;
  claims: PairingClaims;
  actor: AuditActor;
}

export class AgentAuthentication {
  constructor(
    protected readonly store: MarketsStore,
    readonly tokens: PairingTokens,
    protected readonly clock: Clock,
  ) {}

  /**
   * The token's own checks (present, signature, expiry) before a write looks at anything else; its claims, for the
   * write's `authenticate` in the same request (the token is verified once per request).
   */
  async precheck(token: string | null | undefined): Promise<PairingClaims> {
    if (token === null || token === undefined || token.length === 0) throw MarketsErrors.agentAuthRequired();
    return this.tokens.verify(token, this.clock.now());
  }

  /**
   * Authentication 3 for a market write on `machineId` (null: the caller checks the machine itself), inside the
   * write's transaction: the pairing row is locked (FOR UPDATE) so a concurrent PATCH, revoke or another order of
   * the same pairing waits; the daily limit's sum (orders/order.repository.ts) relies on this lock. `verified`: the
   * claims `precheck` answered for this token in this request (the signature and expiry are not checked twice).
   */
  async authenticate(tx: MarketsSql, token: string | null | undefined, machineId: string | null, verified?: PairingClaims): Promise<AgentSession> {
    const claims = verified ?? (await this.precheck(token));
    // sessionOf refuses a malformed pairing ID before it looks at the (then absent) row.
    return this.sessionOf(PAIRING_ID.test(claims.pairingId) ? await lockPairing(tx, claims.pairingId) : null, claims, machineId);
  }

  /**
   * `authenticate`'s checks of the pairing row, for a write that locked the row of `claims.pairingId` (the token
   * verified) in its own statement: null when there is none.
   */
  sessionOf(pairing: PairingRow | null, claims: PairingClaims, machineId: string | null): AgentSession {
    if (!PAIRING_ID.test(claims.pairingId)) throw MarketsErrors.agentAuthInvalid();
    if (!pairing || pairing.machineId !== claims.machineId || pairing.sessionTokenId !== claims.jti || pairing.sessionId !== claims.sessionId) {
      throw MarketsErrors.agentAuthInvalid();
    }
    if (pairing.status !== "active") throw MarketsErrors.agentPairingInactive();
    if (pairing.delegationPolicyHash !== claims.delegationPolicyHash) throw MarketsErrors.agentAuthInvalid();
    if (machineId !== null && pairing.machineId !== machineId) throw MarketsErrors.agentPairingRequired();
    return {
      pairing,
      policy: pairing.delegationPolicy as unknown as DelegationPolicy,
      claims,
      actor: { type: "agent", id: pairing.id },
    };
  }

  /**
   * The start of an agent's write on an order, in its transaction, with the token's claims (`precheck`): the order
   * locked (NOT_FOUND without one), `afterLock` on it, rule 1 for its machine, then the pairing's lock and checks
   * (`authenticate`) and the order's pairing (AGENT_PAIRING_REQUIRED), in that order. The three rows are read and
   * locked in one statement (order.repository.ts lockOrderWrite; `execution`: with execute's reads).
   */
  async orderWrite(
    tx: MarketsSql,
    orderId: string,
    claims: PairingClaims,
    afterLock?: (order: OrderRow) => void,
    execution = false,
  ): Promise<{ order: OrderRow; machine: MarketMachine; session: AgentSession; execution?: OrderWriteRows["execution"] }> {
    const locked = ORDER_ID.test(orderId) ? await lockOrderWrite(tx, orderId, claims.pairingId, execution) : null;
    if (!locked) throw MarketsErrors.notFound();
    const { order } = locked;
    afterLock?.(order);
    const machine = await this.store.guard.check(locked.machine);
    const session = this.sessionOf(locked.pairing, claims, order.machineId);
    if (session.pairing.id !== order.agentPairingId) throw MarketsErrors.agentPairingRequired();
    return { order, machine, session, execution: locked.execution };
  }
}

/**
 * Market orders (public notes 2.7): create from a fresh quote, read, list by machine, confirm, dispute, cancel.
 * Execution is orders/order.execution.ts; payments are orders/payments/payment.service.ts. Every write is authenticated by the pairing
 * token (PairingService.authenticate: the pairing row stays locked for the transaction) and writes its market.*
 * audit event in its transaction.
 *
 * Create, in order: the machine (rule 1), the token (Authentication 3), the quote (NOT_FOUND, QUOTE_EXPIRED; it
 * must come from a search for this machine), the policy's lists (AGENT_POLICY_DENIED), its per-transaction limit
 * (AGENT_SPEND_LIMIT_EXCEEDED) and its daily limit summed in the database (AGENT_DAILY_LIMIT_EXCEEDED), then the
 * machine's policies (policies/policy.enforcement.ts: MACHINE_POLICY_DENIED, MACHINE_SPEND_LIMIT_EXCEEDED,
 * MACHINE_DAILY_LIMIT_EXCEEDED). The order
 * starts `created` with the service's payment recommendation (rail copied from the service) and its snapshot.
 * Spend counted: the quote's fixed price, else 0. Create is one SQL transaction of two statements when no machine
 * policy has a daily limit (orders/order-create.repository.ts): the read of the machine, quote, service and
 * policies with the pairing's lock, then the order with its event and the pairing's daily sum.
 */
import type { Clock } from "../../shared/clock.js";
import type { MarketMachine } from "../../shared/db/generated/client.js";
import { recordAuditEvent } from "../common/audit.repository.js";
import { freshQuote, serviceView, type CatalogueService, type ServiceView } from "../work/catalogue.service.js";
import { MarketsErrors } from "../common/errors.js";
import type { OrderStatus } from "./order.states.js";
import { ORDER_ID, transitionOrder, withinDailyLimit, type OrderRow, type OrderWriteRows } from "./order.repository.js";
import type { AgentSession, PairingService } from "./pairing.service.js";
import { executionDue } from "../work/task.service.js";
import { checkAmount, checkLists } from "./pairing.policy.js";
import { enforcePolicies, policiesPassWithoutSums, policySubjectOf } from "../policies/policy.enforcement.js";
import { assertActive, MARKET_MACHINE_ID } from "../common/machine.guard.js";
import { insertOrder, readCreation } from "./order-create.repository.js";
import type { MarketsStore } from "../common/store.js";
import type { MarketsTx } from "../common/audit.repository.js";
import type { MarketsSql, SqlStatement } from "../common/sql.js";
import { decodeCursor, jsonObject, newId, olderThan, pageLimit, pageOf, text, type JsonObject, type MachineCheck } from "../common/support.js";

export interface CreateOrderInput {
  machineId: string;
  searchId: string;
  quoteId: string;
  input?: unknown;
  budget?: { amount?: string | null; currency?: string | null } | null;
}

const DECIMAL = /^\d{1,18}(\.\d{1,18})?$/;

export function orderView(o: OrderRow) {
  return {
    id: o.id,
    machineId: o.machineId,
    agentPairingId: o.agentPairingId,
    searchId: o.searchId,
    quoteId: o.quoteId,
    serviceId: o.serviceId,
    skillKey: o.skillKey,
    providerKey: o.providerKey,
    serviceType: o.serviceType,
    operation: o.operation,
    executionMode: o.executionMode,
    integrationStatus: o.integrationStatus,
    status: o.status,
    // Only while the execution claim holds: the stored instant stays on the row afterwards, as a record.
    executingDeadline: o.status === "executing" ? (o.executingDeadline?.toISOString() ?? null) : null,
    input: o.input as JsonObject,
    budget: (o.budget as JsonObject | null) ?? null,
    payment: o.payment as JsonObject,
    serviceSnapshot: o.serviceSnapshot as JsonObject,
    spend: { amount: o.spendAmount.toString(), currency: o.spendCurrency },
    taskId: o.taskId,
    routeId: o.routeId,
    runId: o.runId,
    outcomeId: o.outcomeId,
    handoff: (o.handoff as JsonObject | null) ?? null,
    errorMessage: o.errorMessage,
    resolution: (o.resolution as JsonObject | null) ?? null,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export type OrderView = ReturnType<typeof orderView>;

export function requireToken(token: string | null | undefined): string {
  if (token === null || token === undefined || token.length === 0) throw MarketsErrors.agentAuthRequired();
  return token;
}

/** An order write found its order executing past its deadline: it is recovered, then the write runs again. */
class RecoveryDue extends Error {}

export class OrderService {
  constructor(
    readonly store: MarketsStore,
    readonly pairings: PairingService,
    private readonly catalogue: CatalogueService,
    private readonly machineCheck: MachineCheck,
    readonly clock: Clock,
  ) {}

  /** The recovery of orders executing past their deadline (orders/order.recovery.ts), run before any call on an order. */
  recovery: { recoverIfDue(orderId: string): Promise<boolean> } | null = null;

  /**
   * An order write by its pairing's agent: the order locked, its machine active, the token of ITS pairing. An order
   * executing past its deadline is recovered first (after the token's precheck), so the write sees it `failed`: the
   * locked read finds it due, the transaction ends without a write, the recovery runs (its own transaction and
   * refund) and the write starts again.
   */
  agentWrite<T>(
    token: string | null | undefined,
    orderId: string,
    work: (tx: MarketsTx, order: OrderRow, session: AgentSession, machine: MarketMachine) => Promise<T>,
  ): Promise<T> {
    return this.agentWriteIn((step) => this.store.write(step), token, orderId, work);
  }

  /**
   * `agentWrite` in a SQL transaction (MarketsStore.sqlWrite), for writes whose every statement is SQL. `execution`:
   * the order's service and the machine's policies are read with the locks (execute's claim).
   */
  agentSqlWrite<T>(
    token: string | null | undefined,
    orderId: string,
    work: (sql: SqlStatement, order: OrderRow, session: AgentSession, machine: MarketMachine, execution?: OrderWriteRows["execution"]) => Promise<T>,
    execution = false,
  ): Promise<T> {
    return this.agentWriteIn((step) => this.store.sqlWrite(step), token, orderId, work, execution);
  }

  private async agentWriteIn<Tx extends MarketsSql, T>(
    transaction: (step: (tx: Tx) => Promise<T>) => Promise<T>,
    token: string | null | undefined,
    orderId: string,
    work: (tx: Tx, order: OrderRow, session: AgentSession, machine: MarketMachine, execution?: OrderWriteRows["execution"]) => Promise<T>,
    execution = false,
  ): Promise<T> {
    const claims = await this.pairings.precheck(token);
    const attempt = (recoverable: boolean) =>
      transaction(async (tx) => {
        const due = (order: OrderRow) => {
          if (recoverable && this.recovery && executionDue(order, new Date(this.clock.now()))) throw new RecoveryDue();
        };
        const locked = await this.pairings.orderWrite(tx, orderId, claims, due, execution);
        return work(tx, locked.order, locked.session, locked.machine, locked.execution);
      });
    try {
      return await attempt(true);
    } catch (error) {
      if (!(error instanceof RecoveryDue)) throw error;
    }
    await this.recovery!.recoverIfDue(orderId);
    return attempt(false);
  }

  async create(token: string | null | undefined, input: CreateOrderInput): Promise<OrderView> {
    const machineId = text(input.machineId, 100);
    if (!MARKET_MACHINE_ID.test(machineId)) throw MarketsErrors.notFound();
    const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : null);
    const now = new Date(this.clock.now());
    // One SQL transaction; its first statement reads what the checks up to the pairing's lock weigh, which are then
    // taken in their documented order.
    // The token's own checks run first, their answer held until its turn: the first statement locks its pairing.
    const prechecked = await this.pairings.precheck(token).then(
      (claims) => ({ claims }),
      (error: unknown) => ({ error }),
    );
    const pairingId = "claims" in prechecked ? prechecked.claims.pairingId : null;
    const row = await this.store.sqlWrite(async (sql) => {
      const read = await readCreation(sql, machineId, trimmed(input.searchId), trimmed(input.quoteId), pairingId);
      if (!read.machine) throw MarketsErrors.notFound();
      assertActive(read.machine, await this.store.guard.identityHolds(read.machine));
      if ("error" in prechecked) throw prechecked.error;
      const { claims } = prechecked;
      const searchId = text(input.searchId, 100);
      const quoteId = text(input.quoteId, 100);
      const orderInput = input.input === null || input.input === undefined ? {} : jsonObject(input.input);
      const budget = input.budget ?? null;
      if (budget && budget.amount != null && !DECIMAL.test(budget.amount)) throw MarketsErrors.validation();
      if (budget && budget.currency != null && !/^[A-Z0-9]{3,10}$/.test(budget.currency)) throw MarketsErrors.validation();
      const quote = freshQuote(read.search, machineId, now.getTime());
      if (!read.service) throw MarketsErrors.notFound();
      const service: ServiceView = serviceView(read.service);
      const amount = quote.pricing.mode === "fixed" && quote.pricing.amount !== null ? quote.pricing.amount : "0";
      const currency = quote.pricing.currency;
      const session = this.pairings.sessionOf(read.pairing, claims, machineId);
      const subject = policySubjectOf(machineId, service);
      const spend = { amount, currency, now };
      checkLists(session.policy, service.skillKey, service.id);
      checkAmount(session.policy, amount, currency);
      // The day's sum goes into the INSERT unless a policy still has to be weighed after it (its error comes second).
      let dailyLimit = session.policy.dailySpendLimit;
      if (!policiesPassWithoutSums(read.policies, subject, spend)) {
        if (dailyLimit !== null && !(await withinDailyLimit(sql, session.pairing.id, amount, dailyLimit, now))) throw MarketsErrors.agentDailyLimitExceeded();
        dailyLimit = null;
        await enforcePolicies(sql, read.policies, subject, spend);
      }
      const id = newId("ord");
      const created = await insertOrder(
        sql,
        {
          id,
          machineId,
          agentPairingId: session.pairing.id,
          searchId,
          quoteId,
          serviceId: service.id,
          skillKey: service.skillKey,
          providerKey: service.providerKey,
          serviceType: service.serviceType,
          operation: quote.operation,
          executionMode: service.executionMode,
          integrationStatus: service.integrationStatus,
          input: orderInput,
          budget,
          payment: service.payment,
          serviceSnapshot: service,
          spendAmount: amount,
          spendCurrency: currency,
        },
        {
          actor: session.actor,
          data: { orderId: id, pairingId: session.pairing.id, serviceId: service.id, quoteId, spend: { amount, currency }, after: { status: "created" } },
        },
        dailyLimit,
        now,
      );
      if (!created) throw MarketsErrors.agentDailyLimitExceeded();
      return created;
    });
    return orderView(row);
  }

  async get(orderId: string): Promise<OrderView> {
    if (ORDER_ID.test(orderId)) await this.recovery?.recoverIfDue(orderId);
    const row = ORDER_ID.test(orderId) ? await this.store.read((prisma) => prisma.marketOrder.findUnique({ where: { id: orderId } })) : null;
    if (!row) throw MarketsErrors.notFound();
    return orderView(row);
  }

  /** Newest first; `status` filters; `guard: false` for the machine record's own nested field. */
  async list(machineId: string, page: { limit?: number | null; cursor?: string | null }, statuses?: readonly OrderStatus[], guard = true) {
    if (guard) await this.machineCheck(machineId);
    const limit = pageLimit(page.limit);
    const cursor = decodeCursor(page.cursor);
    const rows = await this.store.read((prisma) =>
      prisma.marketOrder.findMany({
        where: { machineId, ...(statuses ? { status: { in: [...statuses] } } : {}), ...olderThan("createdAt", cursor) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit + 1,
      }),
    );
    return pageOf(rows, limit, (o) => ({ at: o.createdAt, id: o.id }), orderView);
  }

  /** delivered or handoff -> confirmed; a held payment moves on to release (its rail's release completes it). */
  confirm(token: string | null | undefined, orderId: string): Promise<OrderView> {
    const now = new Date(this.clock.now());
    return this.agentWrite(token, orderId, async (tx, order, session) => {
      if (order.status !== "delivered" && order.status !== "handoff") throw this.stateError(order);
      const after = await transitionOrder(tx, order, "confirmed", now);
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (payment && payment.status === "held") {
        await tx.marketPayment.update({ where: { id: payment.id }, data: { status: "release_pending", updatedAt: now } });
      }
      await recordAuditEvent(tx, {
        kind: "market.order.confirmed",
        machineId: order.machineId,
        actor: session.actor,
        occurredAt: now,
        data: { orderId, before: { status: order.status }, after: { status: after.status }, paymentStatus: payment?.status === "held" ? "release_pending" : (payment?.status ?? null) },
      });
      return orderView(after);
    });
  }

  /** delivered or handoff -> disputed with a reason (1..1000 characters); a held payment is frozen. */
  dispute(token: string | null | undefined, orderId: string, reason: string | null | undefined): Promise<OrderView> {
    const why = text(reason, 1000);
    const now = new Date(this.clock.now());
    return this.agentWrite(token, orderId, async (tx, order, session) => {
      if (order.status !== "delivered" && order.status !== "handoff") throw this.stateError(order);
      const after = await transitionOrder(tx, order, "disputed", now, { errorMessage: why });
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      const freeze = payment && (payment.status === "held" || payment.status === "release_pending");
      if (freeze) await tx.marketPayment.update({ where: { id: payment.id }, data: { status: "frozen", updatedAt: now } });
      await recordAuditEvent(tx, {
        kind: "market.order.disputed",
        machineId: order.machineId,
        actor: session.actor,
        occurredAt: now,
        data: { orderId, reason: why, before: { status: order.status }, after: { status: after.status }, paymentStatus: freeze ? "frozen" : (payment?.status ?? null) },
      });
      return orderView(after);
    });
  }

  /** created, payment_pending or ready -> cancelled (nothing was executed); its spend no longer counts. */
  cancel(token: string | null | undefined, orderId: string): Promise<OrderView> {
    const now = new Date(this.clock.now());
    return this.agentWrite(token, orderId, async (tx, order, session) => {
      if (!["created", "payment_pending", "ready"].includes(order.status)) throw this.stateError(order);
      const payment = await tx.marketPayment.findUnique({ where: { orderId } });
      if (payment && payment.status !== "not_required" && payment.status !== "intent_created") throw MarketsErrors.orderStateInvalid();
      const after = await transitionOrder(tx, order, "cancelled", now);
      await recordAuditEvent(tx, {
        kind: "market.order.cancelled",
        machineId: order.machineId,
        actor: session.actor,
        occurredAt: now,
        data: { orderId, before: { status: order.status }, after: { status: after.status } },
      });
      return orderView(after);
    });
  }

  stateError(order: OrderRow) {
    return ["confirmed", "cancelled", "failed"].includes(order.status) ? MarketsErrors.orderClosed() : MarketsErrors.orderStateInvalid();
  }
}

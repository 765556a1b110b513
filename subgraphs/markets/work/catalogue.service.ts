/**
 * The service catalogue (notes 2.6): skills, services, and `POST /market/search`, which ranks the matching services
 * into quotes that expire after a short TTL (MARKETS_QUOTE_TTL_SECONDS). Task discovery uses the same ranking.
 *
 * Ranking: a score in [0, 1], the sum of documented weights, each with its reason:
 *   skill or service type asked for and matched 0.35 · operation supported 0.20 · share of the asked capabilities
 *   offered 0.20 · region matched (or the service is global) 0.10 · native execution 0.10 · maturity (production
 *   0.05, beta 0.025). Services that cannot serve the request are left out: another skill or type, an operation they
 *   lack, handoff when `nativeOnly` or `allowHandoff: false`, a fixed price over the budget, a region they do not
 *   serve. Ties: service ID.
 */
import type { Clock } from "../../shared/clock.js";
import { MarketsErrors } from "../common/errors.js";
import { pageOf as pageOfRows, pageRequest } from "../common/pagination.js";
import { CatalogueRepository, type MarketsService, type MarketsSkill } from "./catalogue.repository.js";
import { overlaps, timeRangeOf, timeRangeSet, type TimeRange } from "../common/time-range.filter.js";
import { STREAM_SERVICE_TYPE } from "../stream/seller/listing.catalogue.js";
import { invalid, newId, notFound, text, type JsonObject, type MachineCheck } from "../common/support.js";
import type { MarketsSql } from "../common/sql.js";

export const skillView = (s: MarketsSkill) => ({
  key: s.key,
  providerKey: s.providerKey,
  label: s.label,
  description: s.description,
  serviceTypes: s.serviceTypes,
  operations: s.operations,
  executionMode: s.executionMode,
  integrationStatus: s.integrationStatus,
});

export function serviceView(s: MarketsService) {
  const r = s.record as JsonObject;
  return {
    id: s.id,
    skillKey: s.skillKey,
    providerKey: s.providerKey,
    serviceType: s.serviceType,
    executionMode: s.executionMode,
    region: s.region,
    ...(r as {
      companyName: string;
      name: string;
      description: string;
      operations: string[];
      integrationStatus: string;
      capabilities: string[];
      handoff: { label: string; url: string; notes: string[] } | null;
      metadata: JsonObject;
      providerId: string;
      providerLabel: string;
      authType: string;
      accessMode: string;
      distribution: string;
      maturity: string;
      kind: string;
      freshnessSeconds: number;
      requiresHumanEnablement: boolean;
      referenceUrl: string | null;
      artifactUrl: string | null;
      pricing: { mode: string; amount: string | null; currency: string | null; rate: string | null; notes: string[] };
      payment: { defaultRail: string; required: boolean; supportedRails?: string[] };
    }),
  };
}

export type ServiceView = ReturnType<typeof serviceView>;

export interface SearchInput {
  machineId: string;
  skillKey?: string | null;
  serviceType?: string | null;
  operation?: string | null;
  capabilities?: string[] | null;
  region?: string | null;
  maxResults?: number | null;
  budgetAmount?: string | null;
  budgetCurrency?: string | null;
  nativeOnly?: boolean | null;
  allowHandoff?: boolean | null;
}

export interface RankedService {
  service: ServiceView;
  operation: string;
  score: number;
  reasons: string[];
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Scores one service against a request, or null when it cannot serve it. */
export function rankService(service: ServiceView, want: Omit<SearchInput, "machineId">): RankedService | null {
  const reasons: string[] = [];
  let score = 0;
  if (want.skillKey && service.skillKey !== want.skillKey) return null;
  if (want.serviceType && service.serviceType !== want.serviceType) return null;
  if (want.skillKey || want.serviceType) {
    score += 0.35;
    reasons.push(want.skillKey ? "skill matches" : "service type matches");
  }
  const operation = want.operation ?? service.operations[0]!;
  if (!service.operations.includes(operation)) return null;
  score += 0.2;
  reasons.push(`supports operation ${operation}`);
  const asked = want.capabilities ?? [];
  if (asked.length > 0) {
    const offered = asked.filter((c) => service.capabilities.includes(c)).length;
    score += 0.2 * (offered / asked.length);
    reasons.push(`offers ${offered} of ${asked.length} capabilities`);
  }
  if (want.region) {
    if (service.region !== want.region && service.region !== "global") return null;
    score += 0.1;
    reasons.push(service.region === want.region ? "serves the region" : "serves every region");
  }
  const native = service.executionMode === "native";
  if (!native && (want.nativeOnly === true || want.allowHandoff === false)) return null;
  if (native) {
    score += 0.1;
    reasons.push("native execution");
  }
  if (service.maturity === "production") score += 0.05;
  if (service.maturity === "beta") score += 0.025;
  if (want.budgetAmount && service.pricing.mode === "fixed" && service.pricing.amount !== null) {
    if (want.budgetCurrency && service.pricing.currency !== want.budgetCurrency) return null;
    if (Number(service.pricing.amount) > Number(want.budgetAmount)) return null;
    reasons.push("within budget");
  }
  return { service, operation, score: round(score), reasons };
}

export function rank(services: ServiceView[], want: Omit<SearchInput, "machineId">): RankedService[] {
  return services
    .map((s) => rankService(s, want))
    .filter((r): r is RankedService => r !== null)
    .sort((a, b) => b.score - a.score || (a.service.id < b.service.id ? -1 : 1));
}

/** Whether a service matches the time filter: a listing entry by its listing's range, any other service always. */
function inTimeRange(service: ServiceView, range: TimeRange): boolean {
  if (service.serviceType !== STREAM_SERVICE_TYPE || !timeRangeSet(range)) return true;
  const meta = service.metadata as { timeStart?: string | null; timeEnd?: string | null };
  return overlaps(range, meta.timeStart ? new Date(meta.timeStart) : null, meta.timeEnd ? new Date(meta.timeEnd) : null);
}

const DECIMAL = /^\d{1,18}(\.\d{1,18})?$/;

export class CatalogueService {
  constructor(
    private readonly repo: CatalogueRepository,
    private readonly machineCheck: MachineCheck,
    private readonly clock: Clock,
    private readonly quoteTtlSeconds: number,
  ) {}

  seed(): Promise<unknown> {
    return this.repo.seed();
  }

  async skills() {
    return (await this.repo.skills()).map(skillView);
  }

  async skill(key: string) {
    return this.repo.skill(key);
  }

  async services(filter: { skillKey?: string | null; serviceType?: string | null; executionMode?: string | null; providerKey?: string | null }) {
    const rows = await this.repo.services({
      skillKey: filter.skillKey ?? undefined,
      serviceType: filter.serviceType ?? undefined,
      executionMode: filter.executionMode ?? undefined,
      providerKey: filter.providerKey ?? undefined,
    });
    return rows.map(serviceView);
  }

  /**
   * Services in ID order, `limit` per page, keyset on the ID. `from` / `to` filter the stream listings' entries
   * (`data.stream`) by their listing's time range as `GET /stream/listings` does; services without a time dimension
   * (every other type) are not narrowed by them.
   */
  async servicePage(
    filter: { skillKey?: string | null; serviceType?: string | null; executionMode?: string | null; providerKey?: string | null; from?: string | null; to?: string | null },
    page: { limit?: number | null; cursor?: string | null },
  ) {
    const { limit, after } = pageRequest(page.limit, page.cursor, 1);
    const range = timeRangeOf(filter.from, filter.to);
    const rows = (await this.services(filter)).filter((s) => (after === null || s.id > after[0]!) && inTimeRange(s, range));
    return pageOfRows(rows.slice(0, limit + 1), limit, (s) => [s.id]);
  }

  /** One service; `tx`: read in the caller's transaction. */
  async service(id: string, tx?: MarketsSql): Promise<ServiceView> {
    const row = await this.repo.service(id, tx);
    if (!row) throw notFound();
    return serviceView(row);
  }

  async search(input: SearchInput) {
    await this.machineCheck(input.machineId);
    const want = {
      skillKey: input.skillKey ? text(input.skillKey, 100) : null,
      serviceType: input.serviceType ? text(input.serviceType, 100) : null,
      operation: input.operation ? text(input.operation, 100) : null,
      capabilities: input.capabilities ?? [],
      region: input.region ? text(input.region, 50) : null,
      budgetAmount: input.budgetAmount ?? null,
      budgetCurrency: input.budgetCurrency ?? null,
      nativeOnly: input.nativeOnly ?? false,
      allowHandoff: input.allowHandoff ?? true,
    };
    const maxResults = input.maxResults ?? 10;
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 50) throw invalid();
    if (want.capabilities.length > 20 || want.capabilities.some((c) => c.length === 0 || c.length > 100)) throw invalid();
    if (want.budgetAmount !== null && !DECIMAL.test(want.budgetAmount)) throw invalid();
    if (want.budgetCurrency !== null && !/^[A-Z]{3,5}$/.test(want.budgetCurrency)) throw invalid();
    const ranked = rank(await this.services({}), want).slice(0, maxResults);
    const now = this.clock.now();
    const expiresAt = new Date(now + this.quoteTtlSeconds * 1000);
    const searchId = newId("search");
    const quotes = ranked.map((r) => ({
      id: newId("quote"),
      searchId,
      serviceId: r.service.id,
      skillKey: r.service.skillKey,
      providerKey: r.service.providerKey,
      executionMode: r.service.executionMode,
      integrationStatus: r.service.integrationStatus,
      operation: r.operation,
      score: r.score,
      reasons: r.reasons,
      pricing: r.service.pricing,
      payment: r.service.payment,
      expiresAt: expiresAt.toISOString(),
    }));
    await this.repo.saveSearch({ id: searchId, machineId: input.machineId, quotes: quotes as never, createdAt: new Date(now), expiresAt });
    return { searchId, machineId: input.machineId, createdAt: new Date(now).toISOString(), expiresAt: expiresAt.toISOString(), quotes };
  }

  /** A stored quote while it is fresh: QUOTE_EXPIRED after its TTL (for market orders), NOT_FOUND if unknown. */
  async quote(searchId: string, quoteId: string, machineId?: string) {
    const search = await this.repo.search(searchId);
    const quote = search && (search.quotes as unknown as StoredQuote[]).find((q) => q.id === quoteId);
    return freshQuote(search && { machineId: search.machineId, expiresAt: search.expiresAt, quote: quote ?? null }, machineId, this.clock.now());
  }
}

/** A quote as a search stored it. */
export interface StoredQuote {
  id: string;
  serviceId: string;
  operation: string;
  pricing: { mode: string; amount: string | null; currency: string | null };
}

/**
 * The quote of a stored search (null: no such search; `quote` null: no such quote in it) while it is fresh, for
 * `machineId` when given: NOT_FOUND when unknown or another machine's, QUOTE_EXPIRED after its TTL.
 */
export function freshQuote(search: { machineId: string; expiresAt: Date; quote: StoredQuote | null } | null, machineId: string | undefined, now: number): StoredQuote {
  if (!search || !search.quote || (machineId !== undefined && search.machineId !== machineId)) throw notFound();
  if (search.expiresAt.getTime() <= now) throw MarketsErrors.quoteExpired();
  return search.quote;
}

/**
 * What every markets route entry shares (document 3 on the markets listener, public notes 2.1): the `/api/v1` base
 * path, the `{item}` / `{items, nextCursor}` / 204 envelopes, `limit` (1..500, default 100) and opaque `cursor`
 * query parameters, and strict readers that turn a JSON body or query into GraphQL variables.
 *
 * The readers check types only (a wrong type would otherwise fail GraphQL variable coercion, a 500); every value
 * rule (URL shapes, lengths, enums) lives in the subgraph, so GraphQL callers get the same VALIDATION_ERROR.
 * Unknown body members are ignored, as the hosted API's clients send SDK-specific extras.
 */
import { MARKETS_ERRORS } from "../../errors/markets.js";
import type { ShimOperation } from "../../executor.js";
import type { Rejection } from "../../http-rules.js";
import { RouteInputError, utf8Text } from "../../json-body.js";
import { parseJsonStrict } from "../../../subgraphs/shared/json/strict.js";
import { machineSessionOf, operatorTokenOf, pairingHeaderOf } from "./credentials.js";
import { AREAS, fieldOf, type RouteDefinition, type RouteInput, type RouteOutcome } from "../../route-definition.js";

export const MARKETS_BASE = "/api/v1";

export const op = (name: string, document: string): ShimOperation => ({ name, document });

/** JSON bodies of the markets API are small records; 64 KiB bounds graph node data and heartbeats of many endpoints. */
export const MARKETS_BODY_LIMIT = 65_536;

const REJECTIONS = {
  unauthorized: "AGENT_AUTH_REQUIRED",
  badHeaders: "VALIDATION_ERROR",
  notAcceptable: "VALIDATION_ERROR",
  tooLarge: "PAYLOAD_TOO_LARGE",
} as const satisfies Record<Rejection, string>;

type RouteBase = Pick<RouteDefinition, "area" | "errors" | "rateLimits" | "unavailableCode">;
const BASE: RouteBase = { area: AREAS.markets, errors: MARKETS_ERRORS, rateLimits: ["marketsPerIp"], unavailableCode: "SERVICE_UNAVAILABLE" };

/**
 * How a route relates to global rule 1 (every route naming a machine requires it active and identity-verified;
 * subgraphs/markets/common/machine.guard.ts). test/markets/machines/machine-guard.test.ts walks every markets route with it:
 *
 * - `guarded`: the route names a machine (`:machineId` in its path, or `machineIn` says where else) and `sample` is
 *   a request that passes every other check, so only the machine's state decides the answer (the test puts the
 *   machine's ID wherever a sample body or query value is the string `{machineId}`; `params` fill other path
 *   parameters);
 * - `exempt`: the route names a machine but the rule does not apply, for the reason given (policies, audit events,
 *   the machine record's own reads and writes);
 * - `none`: the route names no machine (a path with `:machineId` cannot say `none`).
 */
export type MachineRule =
  | { kind: "guarded"; machineIn: "path" | "body" | "query"; sample: { body?: unknown; query?: Record<string, string>; params?: Record<string, string> } }
  | { kind: "exempt"; reason: string }
  | { kind: "none" };

/**
 * Who may call a route (every write declares it; test/markets/route-callers.test.ts walks the table):
 *
 * - `machine`: the machine's authority, a machine session (`Authorization: Bearer`, docs/markets-identity.md),
 *   checked before global rule 1 and before any value of the request; the shim passes it as `machineSession`;
 * - `machine-or-proof`: the same, or a new controller-signed `identityProof` in the body (PATCH /machines/:id);
 * - `machine-or-pairing`: the machine's session, or the token of an agent paired with it (`x-agent-pairing-token`);
 * - `identity-proof`: a controller-signed identity challenge in the body (creating a record or a session);
 * - `pairing`: an agent pairing token, within the pairing's delegation policy;
 * - `agent-proof`: an agent's signed pairing challenge in the body (session rotation);
 * - `machine-agent`: a machine agent's token, issued only under the machine's authority;
 * - `pairing-or-machine-agent`: either party of a purchase (the buyer's pairing token or the seller's agent);
 * - `delivery-token`: a chunk delivery token scoped to an order or purchase, its buyer and chunks;
 * - `operator`: the service operator (the arbiter of disputes), a token of OPERATOR_TOKENS in `Authorization: Bearer`,
 *   checked before any value of the request; the shim passes it as `operatorToken`;
 * - `public`: anyone, for the reason given (reads, challenges, the anonymous buyer's order flow).
 */
export type CallerRule =
  | {
      kind:
        | "machine"
        | "machine-or-proof"
        | "machine-or-pairing"
        | "identity-proof"
        | "pairing"
        | "agent-proof"
        | "machine-agent"
        | "pairing-or-machine-agent"
        | "delivery-token"
        | "operator";
    }
  | { kind: "public"; reason: string };

/** The machine authority kinds: the shim reads the session header and checks it before the body. */
export const SESSION_KINDS: ReadonlySet<CallerRule["kind"]> = new Set(["machine", "machine-or-proof", "machine-or-pairing"]);

/** The query that checks a machine session alone (machines/identity/machine-session.resolver.ts). */
const MACHINE_AUTHORITY = op(
  "MachineAuthority",
  `query MachineAuthority($machineId: String!, $machineSession: String, $pairingToken: String) {
  machineAuthority(machineId: $machineId, machineSession: $machineSession, pairingToken: $pairingToken)
}`,
);

/** The query that checks the operator's credential alone (orders/dispute.resolver.ts). */
const OPERATOR_AUTHORITY = op(
  "MarketOperatorAuthority",
  `query MarketOperatorAuthority($operatorToken: String) { marketOperatorAuthority(operatorToken: $operatorToken) }`,
);

type MarketsRouteSpec = Omit<RouteDefinition, keyof RouteBase | "rules" | "rejections" | "path" | "credentialCheck"> & {
  /** Path below /api/v1, e.g. `/machines/:machineId`. */
  path: string;
  /** True for routes that take a JSON body (Content-Type checked, MARKETS_BODY_LIMIT bytes). */
  body?: boolean;
  /** A raw `application/octet-stream` body of at most this many bytes, left unread for the route's `raw.serve`. */
  octetBody?: number;
  machineRule: MachineRule;
  caller: CallerRule;
};

const MACHINE_RULES = new WeakMap<RouteDefinition, MachineRule>();
const CALLER_RULES = new WeakMap<RouteDefinition, CallerRule>();

/** Who may call a markets route (undefined for routes not built by `marketsRoute`). */
export function callerRuleOf(route: RouteDefinition): CallerRule | undefined {
  return CALLER_RULES.get(route);
}

/** The global-rule-1 declaration of a markets route (undefined for routes not built by `marketsRoute`). */
export function machineRuleOf(route: RouteDefinition): MachineRule | undefined {
  return MACHINE_RULES.get(route);
}

/** A route entry of the markets listener. */
export function marketsRoute(spec: MarketsRouteSpec): RouteDefinition {
  const { body, octetBody, path, machineRule, caller, ...rest } = spec;
  if (path.includes(":machineId") && machineRule.kind === "none") throw new Error(`${spec.method} ${path} names a machine`);
  const session = SESSION_KINDS.has(caller.kind);
  const operator = caller.kind === "operator";
  // The credential alone can be checked when the route names its machine (path or body); a session route that does
  // not (DELETE of a session: the token names it) has no body to refuse.
  const namesMachine = path.includes(":machineId") || machineRule.kind !== "none";
  const machineIdOf = (input: RouteInput) => (path.includes(":machineId") ? input.params.machineId : bodyMachineId(input.body));
  const route: RouteDefinition = {
    ...BASE,
    ...rest,
    // The session travels as `machineSession` (the subgraph checks it first); a request whose other values are
    // refused here gets the session's own verdict first (credentialCheck).
    variables: session
      ? (input) => {
          const machineSession = machineSessionOf(input.headers);
          return { ...rest.variables(input), machineSession };
        }
      : operator
        ? (input) => {
            const operatorToken = operatorTokenOf(input.headers);
            return { ...rest.variables(input), operatorToken };
          }
        : rest.variables,
    credentialCheck: operator
      ? { operation: OPERATOR_AUTHORITY, variables: (input) => ({ operatorToken: operatorTokenOf(input.headers) }) }
      : session && namesMachine
      ? {
          operation: MACHINE_AUTHORITY,
          variables: (input) => ({
            machineId: machineIdOf(input) ?? "",
            machineSession: machineSessionOf(input.headers),
            pairingToken: caller.kind === "machine-or-pairing" ? pairingHeaderOf(input.headers) : null,
          }),
        }
      : undefined,
    path: `${MARKETS_BASE}${path}`,
    rules: octetBody !== undefined ? { octetBody: { limit: octetBody } } : body ? { jsonBody: { limit: MARKETS_BODY_LIMIT } } : {},
    rejections: body || octetBody !== undefined ? REJECTIONS : undefined,
  };
  MACHINE_RULES.set(route, machineRule);
  CALLER_RULES.set(route, caller);
  return route;
}

/** The `machineId` member of a JSON body, when there is one (the credential check of body-named machines). */
function bodyMachineId(raw: Buffer): string | null {
  try {
    const value = parseJsonStrict(utf8Text(raw, "VALIDATION_ERROR")) as { machineId?: unknown } | null;
    return typeof value?.machineId === "string" ? value.machineId : null;
  } catch {
    return null;
  }
}

const invalid = () => new RouteInputError("VALIDATION_ERROR");

// ---- responses ----------------------------------------------------------------------------------------------------

const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

/** Turns a GraphQL object into its documented REST view (enum spellings, renamed or dropped fields). */
export type View = (value: any) => unknown;
const asIs: View = (value) => value;

/** `{"item": view(data[field])}`. */
export const itemOf =
  (field: string, status = 200, view: View = asIs) =>
  (data: Record<string, unknown>): RouteOutcome => ({ status, body: json({ item: view(fieldOf(data, field)) }) });

/** `{"item": view(data[field][member])}` with 201 when `data[field].created` is true, else 200 (upserts). */
export const upsertedItemOf =
  (field: string, member: string, view: View = asIs) =>
  (data: Record<string, unknown>): RouteOutcome => {
    const result = fieldOf(data, field);
    return { status: result.created ? 201 : 200, body: json({ item: view(result[member]) }) };
  };

/** `{"items": [view(...)], "nextCursor": "..."}`; the cursor is omitted on the last page. */
export const pageOf =
  (field: string, view: View = asIs) =>
  (data: Record<string, unknown>): RouteOutcome => {
    const page = fieldOf(data, field);
    const items = page.items.map(view);
    return { status: 200, body: json(page.nextCursor == null ? { items } : { items, nextCursor: page.nextCursor }) };
  };

/** 204 with an empty body. */
export const noContent = (): RouteOutcome => ({ status: 204, body: Buffer.alloc(0) });

// ---- query --------------------------------------------------------------------------------------------------------

/** `limit` and `cursor` of list routes. A repeated or malformed parameter is VALIDATION_ERROR. */
export function pageQuery(query: URLSearchParams): { limit: number; cursor: string | null } {
  const limits = query.getAll("limit");
  const cursors = query.getAll("cursor");
  if (limits.length > 1 || cursors.length > 1) throw invalid();
  let limit = 100;
  if (limits.length === 1) {
    if (!/^[1-9][0-9]{0,2}$/.test(limits[0]!)) throw invalid();
    limit = Number(limits[0]);
    if (limit > 500) throw invalid();
  }
  const cursor = cursors[0] ?? null;
  if (cursor !== null && (cursor.length === 0 || cursor.length > 512)) throw invalid();
  return { limit, cursor };
}

/** An optional single query parameter (a repeated one is VALIDATION_ERROR). */
export function queryParam(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name);
  if (values.length > 1) throw invalid();
  return values[0] ?? null;
}

// ---- body ---------------------------------------------------------------------------------------------------------

/** The body as a JSON object (duplicate members refused); an empty body is `{}` only when `emptyIsObject`. */
export function bodyObject(raw: Buffer, emptyIsObject = false): Record<string, unknown> {
  if (raw.length === 0 && emptyIsObject) return {};
  let value: unknown;
  try {
    value = parseJsonStrict(utf8Text(raw, "VALIDATION_ERROR"));
  } catch {
    throw invalid();
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid();
  return value as Record<string, unknown>;
}

export type FieldKind = "string" | "boolean" | "integer" | "number" | "string[]" | "object" | "object[]";
const FIELD_KINDS: readonly FieldKind[] = ["string", "boolean", "integer", "number", "string[]", "object", "object[]"];
/** Each optional spec (`kind?`) and its kind. */
const REQUIRED_KIND: Readonly<Record<string, FieldKind>> = Object.fromEntries(FIELD_KINDS.map((kind) => [`${kind}?`, kind]));

function hasKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isSafeInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string[]":
      return Array.isArray(value) && value.every((entry) => typeof entry === "string");
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "object[]":
      return Array.isArray(value) && value.every((entry) => entry !== null && typeof entry === "object" && !Array.isArray(entry));
  }
}

/**
 * Picks the named members of a body object, type-checked: `kind` required, `kind?` optional (absent or null gives
 * no member, so GraphQL sees it as not given). Members not named are dropped.
 */
export function pick(source: Record<string, unknown>, shape: Record<string, `${FieldKind}` | `${FieldKind}?`>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  // A loop over the shape's own keys without copying its entries or slicing its specs (a heartbeat picks a few dozen).
  for (const name in shape) {
    const spec = shape[name]!;
    const kind = REQUIRED_KIND[spec] ?? (spec as FieldKind);
    const optional = kind !== spec;
    const value = source[name];
    if (value === undefined || value === null) {
      if (!optional) throw invalid();
      continue;
    }
    if (!hasKind(value, kind)) throw invalid();
    picked[name] = value;
  }
  return picked;
}

/** A REST enum value (`api-key`) as its GraphQL enum (`API_KEY`); a value outside `allowed` is VALIDATION_ERROR. */
export function enumIn(value: unknown, allowed: readonly string[]): string {
  if (typeof value !== "string" || !allowed.includes(value)) throw invalid();
  return value.toUpperCase().replace(/-/g, "_");
}

/**
 * A route whose body is a list sized by a dataset (chunk IDs, buyer-access entries): a larger JSON body limit than
 * the markets routes' 64 KiB, still bounded. In the split topology the GraphQL listener's own cap
 * (GRAPHQL_MAX_BODY_BYTES) applies on the next hop too.
 */
export function withJsonBodyLimit(route: RouteDefinition, limit: number): RouteDefinition {
  (route as { rules: RouteDefinition["rules"] }).rules = { ...route.rules, jsonBody: { limit } };
  return route;
}

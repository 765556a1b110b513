/**
 * Document 2's monetization routes and compatibility signal, on both deployments: `GET|PUT /machine/{key}/monetization`
 * in the coded envelope `{"detail":{"code","message"}}`, and `GET /.well-known/<namespace>-monetization`.
 *
 * The PUT body is read as the upstream reads it: empty is FastAPI's `missing` 422, a document Python's json module
 * refuses is its `json_invalid` 422, anything that parses but is not `{opted_in: bool, timestamp: int, signature:
 * str}` (strict JSON types; other members ignored) is 400 INVALID_REQUEST (docs/monetization.md).
 */
import { isUtf8 } from "node:buffer";
import { MONETIZATION_ERRORS, RATINGS_ERRORS } from "../errors/ratings.js";
import type { ShimOperation } from "../executor.js";
import type { Rejection } from "../http-rules.js";
import { decodedPathParameter, invalidJsonBody, missingBody } from "../fastapi.js";
import { RouteInputError } from "../json-body.js";
import { JsonInteger, parsePythonJson, PythonJsonError } from "../python-json.js";
import { AREAS, fieldOf, type RouteArea, type RouteDefinition } from "../route-definition.js";
import { rawInteger } from "../json-text.js";
import { body, type Deployment } from "./ratings-json.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

const STATE_FIELDS = "machineId status signer updatedAt";

export const MONETIZATION_OPERATIONS = {
  machineMonetization: op(
    "MachineMonetization",
    `query MachineMonetization($key: String!, $deployment: RatingsDeployment!) { machineMonetization(key: $key, deployment: $deployment) { ${STATE_FIELDS} } }`,
  ),
  setMachineMonetization: op(
    "SetMachineMonetization",
    `mutation SetMachineMonetization($key: String!, $decision: MonetizationDecisionInput!, $deployment: RatingsDeployment!) {
  setMachineMonetization(key: $key, decision: $decision, deployment: $deployment) { ${STATE_FIELDS} }
}`,
  ),
  monetizationCompatibility: op(
    "MonetizationCompatibility",
    `query MonetizationCompatibility($deployment: RatingsDeployment!, $wellKnownName: String!) {
  monetizationCompatibility(deployment: $deployment, wellKnownName: $wellKnownName) { api version deployment chainId registry messageTemplate maxAgeSeconds maxFutureSeconds }
}`,
  ),
} as const;

/** A decision body is three short members; anything near this size is not one. */
const PUT_BODY_LIMIT = 4096;

const REJECTIONS = {
  unauthorized: "INTERNAL_ERROR",
  badHeaders: "INVALID_REQUEST",
  notAcceptable: "INTERNAL_ERROR",
  tooLarge: "REQUEST_TOO_LARGE",
} as const satisfies Record<Rejection, string>;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function decisionOf(raw: Buffer) {
  if (raw.length === 0) throw missingBody();
  // Python decodes bytes after detecting the encoding; a UTF-8 BOM is skipped, invalid UTF-8 is not JSON at all.
  const bytes = raw.subarray(0, 3).equals(UTF8_BOM) ? raw.subarray(3) : raw;
  if (!isUtf8(bytes)) throw new RouteInputError("INVALID_REQUEST");
  let value;
  try {
    value = parsePythonJson(bytes.toString("utf8"));
  } catch (error) {
    if (error instanceof PythonJsonError) throw invalidJsonBody(error);
    throw error;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof JsonInteger) {
    throw new RouteInputError("INVALID_REQUEST");
  }
  const { opted_in: optedIn, timestamp, signature } = value;
  if (typeof optedIn !== "boolean" || !(timestamp instanceof JsonInteger) || timestamp.value <= 0n || typeof signature !== "string") {
    throw new RouteInputError("INVALID_REQUEST");
  }
  // Beyond 2^53 a timestamp is far outside any freshness window; the subgraph answers STALE_SIGNATURE for it.
  const seconds = timestamp.value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(timestamp.value);
  return { optedIn, timestamp: seconds, signature };
}

function stateJson(state: any, deployment: Deployment) {
  return body({
    machine_id: deployment === "v2" ? state.machineId : rawInteger(state.machineId),
    status: state.status,
    signer: state.signer,
    updated_at: state.updatedAt === null ? null : rawInteger(String(state.updatedAt)),
  });
}

function monetizationRoutes(area: RouteArea, deployment: Deployment): RouteDefinition[] {
  const graphqlDeployment = deployment === "v2" ? "V2" : "V1";
  const base = { area, errors: MONETIZATION_ERRORS, rateLimits: ["ratingsPerIp"], unavailableCode: "MACHINE_UNAVAILABLE" } as const;
  return [
    {
      ...base,
      method: "GET",
      path: "/machine/:key/monetization",
      operation: MONETIZATION_OPERATIONS.machineMonetization,
      rules: {},
      variables: ({ params }) => ({ key: decodedPathParameter(params.key!), deployment: graphqlDeployment }),
      respond: (data) => ({ status: 200, body: stateJson(fieldOf(data, "machineMonetization"), deployment) }),
    },
    {
      ...base,
      method: "PUT",
      path: "/machine/:key/monetization",
      operation: MONETIZATION_OPERATIONS.setMachineMonetization,
      rules: { jsonBody: { limit: PUT_BODY_LIMIT } },
      rejections: REJECTIONS,
      variables: ({ params, body: raw }) => ({
        key: decodedPathParameter(params.key!),
        decision: decisionOf(raw),
        deployment: graphqlDeployment,
      }),
      respond: (data) => ({ status: 200, body: stateJson(fieldOf(data, "setMachineMonetization"), deployment) }),
    },
  ];
}

/**
 * The compatibility signal. Its path names the service namespace (configuration), so the route takes any
 * `/.well-known/<name>` and the subgraph answers NOT_FOUND (404 `Not Found`) unless `<name>` is its own.
 */
function compatibilityRoute(area: RouteArea, deployment: Deployment): RouteDefinition {
  return {
    method: "GET",
    path: "/.well-known/:signal",
    area,
    errors: RATINGS_ERRORS,
    operation: MONETIZATION_OPERATIONS.monetizationCompatibility,
    rules: {},
    rateLimits: ["ratingsPerIp"],
    unavailableCode: "SERVICE_UNAVAILABLE",
    variables: ({ params }) => ({ deployment: deployment === "v2" ? "V2" : "V1", wellKnownName: decodedPathParameter(params.signal!) }),
    respond(data) {
      const c = fieldOf(data, "monetizationCompatibility");
      return {
        status: 200,
        body: body({
          api: c.api,
          version: c.version,
          deployment: c.deployment,
          chain_id: rawInteger(c.chainId),
          registry: c.registry,
          message_template: c.messageTemplate,
          freshness: { max_age_seconds: c.maxAgeSeconds, max_future_seconds: c.maxFutureSeconds },
        }),
      };
    },
  };
}

export const MONETIZATION_ROUTES: readonly RouteDefinition[] = [
  ...monetizationRoutes(AREAS.ratings, "v1"),
  compatibilityRoute(AREAS.ratings, "v1"),
  ...monetizationRoutes(AREAS.ratingsV2, "v2"),
  compatibilityRoute(AREAS.ratingsV2, "v2"),
];

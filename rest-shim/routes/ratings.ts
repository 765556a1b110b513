/**
 * Document 2's read routes and probes, on both deployments: the 1.0 listener (HTTP_PORT, area `ratings`) and the
 * 2.0 listener (MCR2_PORT, area `ratingsV2`). One operation per route; the deployment is a variable. The second-chain
 * routes exist on 1.0 only (2.0 answers them 404). docs/ratings-api.md lists every answer.
 */
import { RATINGS_ERRORS } from "../errors/ratings.js";
import type { ShimOperation } from "../executor.js";
import { decodedPathParameter, validateInts } from "../fastapi.js";
import { AREAS, fieldOf, noVariables, type RouteArea, type RouteDefinition, type RouteOutcome } from "../route-definition.js";
import {
  body,
  cardJson,
  CARD_FIELDS,
  operatorJson,
  OPERATOR_FIELDS,
  profileJson,
  PROFILE_FIELDS,
  readinessJson,
  READINESS_FIELDS,
  scorecardJson,
  SCORECARD_FIELDS,
  type Deployment,
} from "./ratings-json.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

export const RATINGS_OPERATIONS = {
  health: op("Health", `query Health { health { status } }`),
  readiness: op("Readiness", `query Readiness { readiness { ${READINESS_FIELDS} } }`),
  mcrScorecard: op(
    "McrScorecard",
    `query McrScorecard($did: String!, $deployment: RatingsDeployment!) { mcrScorecard(did: $did, deployment: $deployment) { ${SCORECARD_FIELDS} } }`,
  ),
  machineProfile: op(
    "MachineProfile",
    `query MachineProfile($did: String!, $deployment: RatingsDeployment!) { machineProfile(did: $did, deployment: $deployment) { ${PROFILE_FIELDS} } }`,
  ),
  tokenMetadata: op(
    "TokenMetadata",
    `query TokenMetadata($tokenId: String!, $deployment: RatingsDeployment!) { tokenMetadata(tokenId: $tokenId, deployment: $deployment) { ${PROFILE_FIELDS} } }`,
  ),
  operatorMachines: op(
    "OperatorMachines",
    `query OperatorMachines($did: String!, $offset: Int!, $limit: Int!, $deployment: RatingsDeployment!) {
  operatorMachines(did: $did, offset: $offset, limit: $limit, deployment: $deployment) { ${OPERATOR_FIELDS} }
}`,
  ),
  machineCard: op(
    "MachineCard",
    `query MachineCard($machineId: String!, $deployment: RatingsDeployment!) { machineCard(machineId: $machineId, deployment: $deployment) { ${CARD_FIELDS} } }`,
  ),
  altchainMcr: op(
    "AltchainMcr",
    `query AltchainMcr($altchainAddress: String!) { altchainMcr(altchainAddress: $altchainAddress) { altchainAddress evmAddress scorecard { ${SCORECARD_FIELDS} } } }`,
  ),
  altchainOperatorMachines: op(
    "AltchainOperatorMachines",
    `query AltchainOperatorMachines($altchainAddress: String!, $offset: Int!, $limit: Int!) {
  altchainOperatorMachines(altchainAddress: $altchainAddress, offset: $offset, limit: $limit) { altchainAddress evmAddress listing { ${OPERATOR_FIELDS} } }
}`,
  ),
} as const;

/** GraphQL's Int is 32-bit: a larger offset can only name an empty page, so it is refused like `le` (docs). */
const MAX_OFFSET = 2_147_483_647;
/** Starlette keeps the last of repeated query parameters. */
const lastOf = (query: URLSearchParams, name: string) => query.getAll(name).at(-1);
const PAGINATION = (query: URLSearchParams) => {
  const [offset, limit] = validateInts([
    { location: "query", name: "offset", raw: lastOf(query, "offset"), default: 0n, ge: 0, le: MAX_OFFSET },
    { location: "query", name: "limit", raw: lastOf(query, "limit"), default: 20n, ge: 1, le: 20 },
  ]);
  return { offset: Number(offset), limit: Number(limit) };
};
/** `{token_id}` (1 or more) and `{machine_id}` (0 or more) as FastAPI validates them; passed on canonical. */
const pathInt = (raw: string, name: string, ge: number) =>
  validateInts([{ location: "path", name, raw: decodedPathParameter(raw), ge }])[0]!.toString();

const json = (field: string, toJson: (data: any) => Parameters<typeof body>[0]) => (data: Record<string, unknown>): RouteOutcome => ({
  status: 200,
  body: body(toJson(fieldOf(data, field))),
});

const GRAPHQL_DEPLOYMENT: Record<Deployment, string> = { v1: "V1", v2: "V2" };

function readRoutes(area: RouteArea, deployment: Deployment): RouteDefinition[] {
  const base = { area, errors: RATINGS_ERRORS, rules: {}, rateLimits: ["ratingsPerIp"], unavailableCode: "SERVICE_UNAVAILABLE" } as const;
  const d = GRAPHQL_DEPLOYMENT[deployment];
  return [
    {
      ...base,
      method: "GET",
      path: "/health",
      operation: RATINGS_OPERATIONS.health,
      rateLimits: [],
      whenUnavailable: { status: 200, body: Buffer.from('{"status":"ok"}') },
      variables: noVariables,
      respond: json("health", (health) => ({ status: String(health.status).toLowerCase() })),
    },
    {
      ...base,
      method: "GET",
      path: "/ready",
      operation: RATINGS_OPERATIONS.readiness,
      rateLimits: [],
      variables: noVariables,
      respond(data) {
        const readiness = fieldOf(data, "readiness");
        const status = readiness.status === "READY" ? 200 : readiness.status === "NOT_READY" ? 503 : null;
        return status === null ? { errorCode: "INTERNAL_ERROR" } : { status, body: body(readinessJson(readiness)) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/mcr/:did",
      operation: RATINGS_OPERATIONS.mcrScorecard,
      variables: ({ params }) => ({ did: decodedPathParameter(params.did!), deployment: d }),
      respond: json("mcrScorecard", (s) => scorecardJson(s, deployment)),
    },
    {
      ...base,
      method: "GET",
      path: "/machine/:did",
      operation: RATINGS_OPERATIONS.machineProfile,
      variables: ({ params }) => ({ did: decodedPathParameter(params.did!), deployment: d }),
      respond: json("machineProfile", (p) => profileJson(p, deployment)),
    },
    {
      ...base,
      method: "GET",
      path: "/metadata/:token_id",
      operation: RATINGS_OPERATIONS.tokenMetadata,
      variables: ({ params }) => ({ tokenId: pathInt(params.token_id!, "token_id", 1), deployment: d }),
      respond: json("tokenMetadata", (p) => profileJson(p, deployment)),
    },
    {
      ...base,
      method: "GET",
      path: "/operator/:did/machines",
      operation: RATINGS_OPERATIONS.operatorMachines,
      variables: ({ params, query }) => ({ did: decodedPathParameter(params.did!), ...PAGINATION(query), deployment: d }),
      respond: json("operatorMachines", (o) => operatorJson(o, deployment)),
    },
    {
      ...base,
      method: "GET",
      path: "/machines/:machine_id",
      operation: RATINGS_OPERATIONS.machineCard,
      variables: ({ params }) => ({ machineId: pathInt(params.machine_id!, "machine_id", 0), deployment: d }),
      respond: json("machineCard", (c) => cardJson(c, deployment)),
    },
  ];
}

/** 1.0 only: the bound identity's payload plus the two binding fields. */
function altchainRoutes(area: RouteArea): RouteDefinition[] {
  const base = { area, errors: RATINGS_ERRORS, rules: {}, rateLimits: ["ratingsPerIp"], unavailableCode: "SERVICE_UNAVAILABLE" } as const;
  const binding = (b: any) => ({ altchain_address: b.altchainAddress, evm_address: b.evmAddress });
  return [
    {
      ...base,
      method: "GET",
      path: "/altchain/mcr/:altchain_addr",
      operation: RATINGS_OPERATIONS.altchainMcr,
      variables: ({ params }) => ({ altchainAddress: decodedPathParameter(params.altchain_addr!) }),
      respond: json("altchainMcr", (b) => ({ ...scorecardJson(b.scorecard, "v1"), ...binding(b) })),
    },
    {
      ...base,
      method: "GET",
      path: "/altchain/operator/:altchain_addr/machines",
      operation: RATINGS_OPERATIONS.altchainOperatorMachines,
      variables: ({ params, query }) => ({ altchainAddress: decodedPathParameter(params.altchain_addr!), ...PAGINATION(query) }),
      respond: json("altchainOperatorMachines", (b) => ({ ...operatorJson(b.listing, "v1"), ...binding(b) })),
    },
  ];
}

export const RATINGS_ROUTES: readonly RouteDefinition[] = [
  ...readRoutes(AREAS.ratings, "v1"),
  ...altchainRoutes(AREAS.ratings),
  ...readRoutes(AREAS.ratingsV2, "v2"),
];

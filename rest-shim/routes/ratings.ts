/** Document 2 (credit-rating read API and monetization toggle, on the HTTP listener): operations and route entries. */
import { RATINGS_ERRORS } from "../errors/ratings.js";
import type { ShimOperation } from "../executor.js";
import { AREAS, noVariables, ok, serializeField, type RouteDefinition } from "../route-definition.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

/** Selection order is the JSON member order of the REST body, so the shim returns `data.<field>` as is. */
export const RATINGS_OPERATIONS = {
  health: op("Health", `query Health { health { status } }`),
  readiness: op(
    "Readiness",
    `query Readiness {
  readiness {
    status rpc_connected
    contracts { identity_registry identity_staking event_registry machine_nft did_registry admin_flags }
  }
}`,
  ),
} as const;

export const RATINGS_ROUTES: readonly RouteDefinition[] = [
  {
    method: "GET",
    path: "/health",
    area: AREAS.ratings,
    errors: RATINGS_ERRORS,
    operation: RATINGS_OPERATIONS.health,
    rules: {},
    rateLimits: [],
    unavailableCode: "SERVICE_UNAVAILABLE",
    whenUnavailable: { status: 200, body: Buffer.from('{"status":"ok"}') },
    variables: noVariables,
    respond: ok(200, "health"),
  },
  {
    method: "GET",
    path: "/ready",
    area: AREAS.ratings,
    errors: RATINGS_ERRORS,
    operation: RATINGS_OPERATIONS.readiness,
    rules: {},
    rateLimits: [],
    unavailableCode: "SERVICE_UNAVAILABLE",
    variables: noVariables,
    respond(data) {
      const body = serializeField(data, "readiness");
      const status = (data.readiness as { status?: unknown }).status;
      if (status === "ready") return { status: 200, body };
      if (status === "not_ready") return { status: 503, body };
      return { errorCode: "INTERNAL_ERROR" };
    },
  },
];

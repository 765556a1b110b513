/** Document 3: policies and audit events (both skip global rule 1); entries built with `marketsRoute`. */
import type { RouteDefinition } from "../../../route-definition.js";
import { bodyObject, itemOf, marketsRoute, pageOf, pageQuery, pick, queryParam } from "../http.js";
import { WORK_OPERATIONS as OPS } from "./work.operations.js";

const POLICY_SHAPE = {
  name: "string?",
  description: "string?",
  kind: "string?",
  status: "string?",
  machineIds: "string[]?",
  rules: "object?",
} as const;

const policyExempt = { kind: "exempt", reason: "policy routes skip the machine check (global rule 1)" } as const;

function filters(query: URLSearchParams, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = queryParam(query, name);
    if (value !== null) out[name] = value;
  }
  return out;
}

export const POLICY_AUDIT_ROUTES: readonly RouteDefinition[] = [
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/policies",
    operation: OPS.marketPolicies,
    machineRule: policyExempt,
    variables: ({ query }) => ({ ...pageQuery(query), ...filters(query, ["status", "kind"]) }),
    respond: pageOf("marketPolicies"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "platform-wide policies name no machine; MARKETS_API_KEYS guards them with every route" },
    method: "POST",
    path: "/policies",
    body: true,
    operation: OPS.createMarketPolicy,
    machineRule: policyExempt,
    variables: ({ body }) => ({ input: pick(bodyObject(body), POLICY_SHAPE) }),
    respond: itemOf("createMarketPolicy", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/policies/:policyId",
    operation: OPS.marketPolicy,
    machineRule: policyExempt,
    variables: ({ params }) => ({ policyId: params.policyId }),
    respond: itemOf("marketPolicy"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "platform-wide policies name no machine; MARKETS_API_KEYS guards them with every route" },
    method: "PATCH",
    path: "/policies/:policyId",
    body: true,
    operation: OPS.updateMarketPolicy,
    machineRule: policyExempt,
    variables: ({ params, body }) => {
      const source = bodyObject(body);
      // `description: null` clears it (pick drops nulls as "not given").
      return { policyId: params.policyId, input: { ...pick(source, POLICY_SHAPE), ...(source.description === null ? { description: null } : {}) } };
    },
    respond: itemOf("updateMarketPolicy"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/audit-events",
    operation: OPS.auditEvents,
    machineRule: { kind: "exempt", reason: "audit-event routes skip the machine check (global rule 1)" },
    variables: ({ query }) => ({ ...pageQuery(query), ...filters(query, ["machineId", "kind", "actorType", "actorId", "since", "until"]) }),
    respond: pageOf("auditEvents"),
  }),
];


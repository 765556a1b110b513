/**
 * Document 3: machine identity challenges and machine records (runtime endpoints and machine-side agents are in
 * rest-shim/routes/markets/machines/runtime.routes.ts). Entries built with `marketsRoute` from rest-shim/routes/markets/http.ts; views keep the documented field
 * names (public notes 2.2).
 */
import type { RouteDefinition } from "../../../route-definition.js";
import { bodyObject, enumIn, itemOf, marketsRoute, noContent, op, pageOf, pageQuery, pick } from "../http.js";

const MACHINE_FIELDS = `id displayName status ownerId identityRef
  identityProof { method identityRef signerAddress challengeId verifiedAt challengeExpiresAt controllerAddresses resolutionSource }
  machineType runtimeProfile capabilities policyIds skillKeys labels createdAt updatedAt`;

export const MACHINE_OPERATIONS = {
  createMachineIdentityChallenge: op(
    "CreateMachineIdentityChallenge",
    `mutation CreateMachineIdentityChallenge($identityRef: String!) {
  createMachineIdentityChallenge(identityRef: $identityRef) { challengeId identityRef message expiresAt verificationMethod controllerAddresses }
}`,
  ),
  marketMachines: op(
    "MarketMachines",
    `query MarketMachines($limit: Int, $cursor: String) { marketMachines(limit: $limit, cursor: $cursor) { items { ${MACHINE_FIELDS} } nextCursor } }`,
  ),
  marketMachine: op("MarketMachine", `query MarketMachine($id: String!) { marketMachine(id: $id) { ${MACHINE_FIELDS} } }`),
  createMarketMachine: op(
    "CreateMarketMachine",
    `mutation CreateMarketMachine($input: CreateMarketMachineInput!) { createMarketMachine(input: $input) { ${MACHINE_FIELDS} } }`,
  ),
  updateMarketMachine: op(
    "UpdateMarketMachine",
    `mutation UpdateMarketMachine($machineSession: String, $id: String!, $input: UpdateMarketMachineInput!) { updateMarketMachine(machineSession: $machineSession, id: $id, input: $input) { ${MACHINE_FIELDS} } }`,
  ),
  createMachineSession: op(
    "CreateMachineSession",
    `mutation CreateMachineSession($input: CreateMachineSessionInput!) {
  createMachineSession(input: $input) { sessionId machineId controllerAddress sessionToken issuedAt expiresAt }
}`,
  ),
  revokeMachineSession: op(
    "RevokeMachineSession",
    `mutation RevokeMachineSession($machineSession: String, $sessionId: String!) {
  revokeMachineSession(machineSession: $machineSession, sessionId: $sessionId)
}`,
  ),
} as const;

export const MACHINE_STATUSES = ["draft", "active", "degraded", "blocked", "archived"] as const;


/** Members of a create or patch body; `displayName` required on create only. */
function machineInput(raw: Buffer, create: boolean) {
  const body = bodyObject(raw);
  const input = pick(body, {
    displayName: create ? "string" : "string?",
    identityRef: "string?",
    identityProof: "object?",
    status: "string?",
    ownerId: "string?",
    machineType: "string?",
    runtimeProfile: "string?",
    capabilities: "string[]?",
    policyIds: "string[]?",
    skillKeys: "string[]?",
    labels: "object?",
  });
  if (input.identityProof !== undefined) {
    input.identityProof = pick(input.identityProof as Record<string, unknown>, { challengeId: "string", signature: "string" });
  }
  if (input.status !== undefined) input.status = enumIn(input.status, MACHINE_STATUSES);
  return input;
}

export const MACHINE_ROUTES: readonly RouteDefinition[] = [
  marketsRoute({ caller: { kind: "identity-proof" },
    method: "POST",
    path: "/machine-identity/sessions",
    body: true,
    machineRule: { kind: "exempt", reason: "opening a session is how a controller acts for a machine that is not active, to restore it" },
    operation: MACHINE_OPERATIONS.createMachineSession,
    variables: ({ body }) => {
      const input = pick(bodyObject(body), { machineId: "string", identityProof: "object" });
      input.identityProof = pick(input.identityProof as Record<string, unknown>, { challengeId: "string", signature: "string" });
      return { input };
    },
    respond: itemOf("createMachineSession", 201),
  }),
  marketsRoute({ caller: { kind: "machine" },
    method: "DELETE",
    path: "/machine-identity/sessions/:sessionId",
    machineRule: { kind: "none" },
    operation: MACHINE_OPERATIONS.revokeMachineSession,
    // The session itself travels as `machineSession` (marketsRoute adds it for every machine-authority route).
    variables: ({ params }) => ({ sessionId: params.sessionId }),
    respond: noContent,
  }),
  marketsRoute({ caller: { kind: "public", reason: "a challenge grants nothing until a controller signs it" },
    method: "POST",
    path: "/machine-identity/challenges",
    body: true,
    machineRule: { kind: "none" },
    operation: MACHINE_OPERATIONS.createMachineIdentityChallenge,
    variables: ({ body }) => pick(bodyObject(body), { identityRef: "string" }),
    respond: itemOf("createMachineIdentityChallenge", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines",
    machineRule: { kind: "none" },
    operation: MACHINE_OPERATIONS.marketMachines,
    variables: ({ query }) => pageQuery(query),
    respond: pageOf("marketMachines"),
  }),
  marketsRoute({ caller: { kind: "identity-proof" },
    method: "POST",
    path: "/machines",
    body: true,
    machineRule: { kind: "none" },
    operation: MACHINE_OPERATIONS.createMarketMachine,
    variables: ({ body }) => ({ input: machineInput(body, true) }),
    respond: itemOf("createMarketMachine", 201),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/machines/:machineId",
    machineRule: {
      kind: "exempt",
      reason: "the record's own read: shows drafts and blocked machines, re-verifies the identity itself (MACHINE_NOT_ACTIVATED)",
    },
    operation: MACHINE_OPERATIONS.marketMachine,
    variables: ({ params }) => ({ id: params.machineId! }),
    respond: itemOf("marketMachine", 200),
  }),
  marketsRoute({ caller: { kind: "machine-or-proof" },
    method: "PATCH",
    path: "/machines/:machineId",
    body: true,
    machineRule: { kind: "exempt", reason: "the record's own update: it is how a machine becomes verified and active" },
    operation: MACHINE_OPERATIONS.updateMarketMachine,
    variables: ({ params, body }) => ({ id: params.machineId!, input: machineInput(body, false) }),
    respond: itemOf("updateMarketMachine", 200),
  }),
];

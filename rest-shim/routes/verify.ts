/** Document 1 (chip verification, under /v1/verify/ on the HTTP listener): operations and route entries. */
import { VERIFY_ERRORS } from "../errors/verify.js";
import type { ShimOperation } from "../executor.js";
import type { Rejection } from "../http-rules.js";
import { closedStringObject, utf8Text } from "../json-body.js";
import { AREAS, fieldOf, ok, type RouteDefinition } from "../route-definition.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

/** Selection order is the JSON member order of the REST body, so the shim returns `data.<field>` as is. */
export const VERIFY_OPERATIONS = {
  verifyMachine: op(
    "VerifyMachine",
    `query VerifyMachine($machineId: String!) {
  machineVerification(machineId: $machineId) {
    machineId machineDid
    homeChain { kind chainId }
    didController { kind address }
    operator { kind address }
    verification { kyb { status } chip { status } }
  }
}`,
  ),
  createChipChallenge: op(
    "CreateChipChallenge",
    `mutation CreateChipChallenge($machineId: String!) {
  createChipChallenge(machineId: $machineId) {
    chainId didController expiresAt machineDid machineId nonce profile protocol verifier
  }
}`,
  ),
  submitChipEvidence: op(
    "SubmitChipEvidence",
    `mutation SubmitChipEvidence($evidence: String!) {
  submitChipEvidence(evidence: $evidence) { receiptId status }
}`,
  ),
} as const;

const VERIFY_REJECTIONS = {
  unauthorized: "ONBOARDING_AUTH_REQUIRED",
  badHeaders: "INVALID_REQUEST",
  notAcceptable: "NOT_ACCEPTABLE",
  tooLarge: "REQUEST_TOO_LARGE",
} as const satisfies Record<Rejection, string>;

/** The verification record as its REST body (statuses already in their REST spelling, rest-shim/routes/enum-spelling.ts). */
export function verificationRecordJson(data: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify(fieldOf(data, "machineVerification")), "utf8");
}

/** Document 1: the read route's body may not exceed this; a larger record is answered as unavailable. */
const VERIFY_READ_MAX_BYTES = 4096;

export const VERIFY_ROUTES: readonly RouteDefinition[] = [
  {
    method: "GET",
    path: "/v1/verify/machines/:machineId",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: VERIFY_OPERATIONS.verifyMachine,
    rules: { acceptJson: true },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "verifyReadPerIp"],
    unavailableCode: "VERIFY_READ_UNAVAILABLE",
    invalidPathCode: "INVALID_MACHINE_ID",
    // The record is chain state at the pinned block and nothing else (verification-record.service.ts).
    reuseWhile: "chainBlock",
    variables: ({ params }) => ({ machineId: params.machineId }),
    respond(data) {
      const body = verificationRecordJson(data);
      if (body.length > VERIFY_READ_MAX_BYTES) return { errorCode: "VERIFY_READ_UNAVAILABLE" };
      return { status: 200, body };
    },
  },
  {
    method: "POST",
    path: "/v1/verify/chip/challenge",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: VERIFY_OPERATIONS.createChipChallenge,
    rules: { onboardingToken: true, acceptJson: true, jsonBody: { limit: 1024 } },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "challengePerIp"],
    unavailableCode: "VERIFY_STORE_UNAVAILABLE",
    // Shape only; the machine-ID format is the verify subgraph's rule (it answers INVALID_REQUEST on this route).
    variables: ({ body }) => ({ machineId: closedStringObject(body, ["machineId"], "INVALID_REQUEST").machineId }),
    respond: ok(201, "createChipChallenge"),
  },
  {
    method: "POST",
    path: "/v1/verify/chip/evidence",
    area: AREAS.verify,
    errors: VERIFY_ERRORS,
    operation: VERIFY_OPERATIONS.submitChipEvidence,
    rules: { onboardingToken: true, acceptJson: true, jsonBody: { limit: 16_384 } },
    rejections: VERIFY_REJECTIONS,
    rateLimits: ["verifyApiPerIp", "evidencePerIp"],
    unavailableCode: "VERIFY_STORE_UNAVAILABLE",
    // The exact bytes as text: the subgraph checks that they are the canonical form of the evidence.
    variables: ({ body }) => ({ evidence: utf8Text(body, "INVALID_REQUEST") }),
    respond(data) {
      const receipt = fieldOf(data, "submitChipEvidence") as Record<string, unknown>;
      return { status: 202, body: Buffer.from(JSON.stringify(receipt), "utf8") };
    },
  },
];

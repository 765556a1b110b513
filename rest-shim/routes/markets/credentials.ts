/**
 * The credentials a markets route reads from its headers before anything else (http.ts `caller`): the operator's token
 * and the machine session in `Authorization: Bearer <token>`, and the agent's `x-agent-pairing-token`. Absent is null
 * (the service answers the credential's *_REQUIRED code); a header of the wrong form is refused here with its
 * *_INVALID code, before the body is read.
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../json-body.js";

/** `Authorization: Bearer <token>`: null when absent; `invalidCode` when it is not exactly one bearer token. */
function bearerOf(headers: Readonly<IncomingHttpHeaders>, invalidCode: string): string | null {
  const authorization = headers.authorization;
  if (authorization === undefined) return null;
  const match = /^Bearer ([^\s]+)$/.exec(authorization);
  if (!match) throw new RouteInputError(invalidCode);
  return match[1]!;
}

/** The operator's token (the arbiter's routes): OPERATOR_AUTH_REQUIRED when absent, OPERATOR_AUTH_INVALID when malformed. */
export const operatorTokenOf = (headers: Readonly<IncomingHttpHeaders>): string | null => bearerOf(headers, "OPERATOR_AUTH_INVALID");

/** The machine session: MACHINE_IDENTITY_PROOF_REQUIRED when absent, MACHINE_IDENTITY_PROOF_INVALID when malformed. */
export const machineSessionOf = (headers: Readonly<IncomingHttpHeaders>): string | null => bearerOf(headers, "MACHINE_IDENTITY_PROOF_INVALID");

/** The `x-agent-pairing-token` header alone (routes where `Authorization` carries the machine session). */
export function pairingHeaderOf(headers: Readonly<IncomingHttpHeaders>): string | null {
  const header = headers["x-agent-pairing-token"];
  if (header === undefined) return null;
  if (Array.isArray(header) || header.length === 0) throw new RouteInputError("AGENT_AUTH_INVALID");
  return header;
}

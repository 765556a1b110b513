/**
 * A machine's identity and its authority (docs/markets-identity.md "Machine sessions"): a fresh identity challenge
 * for the machine's identityRef, signed (EIP-191) by its DID controller key, opens a machine session; its token is
 * the `Authorization: Bearer` of the machine's writes. Answers the session and a markets client that carries it.
 */
import type { Signer } from "ethers";
import { ok, type MarketsClient } from "../clients.js";
import { FlowError } from "../errors.js";
import { report, type OnProgress } from "./progress.js";

/** A signed identity proof for `identityRef` (the `identityProof` body member of binding and session routes). */
export async function proveIdentity(markets: MarketsClient, identityRef: string, controller: Signer): Promise<{ challengeId: string; signature: string }> {
  const challenge = (await ok(markets.api.POST("/api/v1/machine-identity/challenges", { body: { identityRef } }))).item;
  return { challengeId: challenge.challengeId, signature: await controller.signMessage(challenge.message) };
}

export async function openMachineSession(
  markets: MarketsClient,
  machineId: string,
  controller: Signer,
  onProgress?: OnProgress,
) {
  const machine = (await ok(markets.api.GET("/api/v1/machines/{machineId}", { params: { path: { machineId } } }))).item;
  const identityRef = (machine as { identityRef?: string | null }).identityRef;
  if (!identityRef) throw new FlowError("MACHINE_IDENTITY_MISSING", `machine ${machineId} has no identityRef: no controller can act for it`);
  const identityProof = await proveIdentity(markets, identityRef, controller);
  report(onProgress, "identity-proved", { identityRef });
  const session = (await ok(markets.api.POST("/api/v1/machine-identity/sessions", { body: { machineId, identityProof } }))).item;
  report(onProgress, "session-opened", { sessionId: session.sessionId, expiresAt: session.expiresAt });
  return { session, client: markets.with({ machineSession: session.sessionToken }) };
}

/** The session as the platform answers it: sessionId, machineId, controllerAddress, sessionToken, issuedAt, expiresAt. */
export type MachineSession = Awaited<ReturnType<typeof openMachineSession>>["session"];

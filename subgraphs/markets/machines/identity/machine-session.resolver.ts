/** Machine sessions on GraphQL: the mutations behind `POST` and `DELETE /machine-identity/sessions`. */
import { Arg, Mutation, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../../deps.js";
import { CreateMachineSessionInput, MachineSession } from "./machine-session.type.js";

/**
 * The machine's session, or (where the route allows an agent instead, and no session was sent) the token of an agent
 * paired with the machine: market search and its credential check.
 */
export async function authorizeMachineOrAgent(
  deps: MarketsDeps,
  machineSession: string | null,
  pairingToken: string | null,
  machineId: string,
): Promise<void> {
  if (pairingToken != null && machineSession == null) await deps.store.write((tx) => deps.pairings.authenticate(tx, pairingToken, machineId));
  else await deps.machineSessions.authorize(machineSession, machineId);
}

@Resolver()
export class MachineSessionResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MachineSession, { description: "POST /machine-identity/sessions: the machine's authority for a controller's proof." })
  createMachineSession(@Arg("input", () => CreateMachineSessionInput) input: CreateMachineSessionInput): Promise<MachineSession> {
    return this.deps.machineSessions.create(input.machineId, input.identityProof);
  }

  @Query(() => Boolean, {
    description: "True when `machineSession` is the machine's authority now; its error (MACHINE_IDENTITY_PROOF_*) otherwise.",
  })
  async machineAuthority(
    @Arg("machineId", () => String) machineId: string,
    @Arg("machineSession", () => String, { nullable: true }) machineSession: string | null,
    @Arg("pairingToken", () => String, { nullable: true, description: "Where an agent paired with the machine may act instead." })
    pairingToken: string | null,
  ): Promise<boolean> {
    if (machineId === "" && pairingToken == null) {
      // A body that names no machine: the session is checked for the machine it was issued for.
      await this.deps.machineSessions.authorizeOwn(machineSession);
    } else {
      await authorizeMachineOrAgent(this.deps, machineSession, pairingToken, machineId);
    }
    return true;
  }

  @Mutation(() => Boolean, { description: "DELETE /machine-identity/sessions/{sessionId}: ends a session of the caller's machine." })
  async revokeMachineSession(
    @Arg("machineSession", () => String, { nullable: true, description: "A live session of the same machine." }) machineSession: string | null,
    @Arg("sessionId", () => String) sessionId: string,
  ): Promise<boolean> {
    await this.deps.machineSessions.revoke(machineSession, sessionId);
    return true;
  }
}

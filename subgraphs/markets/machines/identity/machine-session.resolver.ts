/** Machine sessions on GraphQL: the mutations behind `POST` and `DELETE /machine-identity/sessions`. */
import { Arg, Mutation, Resolver } from "type-graphql";
import type { MarketsDeps } from "../../deps.js";
import { CreateMachineSessionInput, MachineSession } from "./machine-session.type.js";

@Resolver()
export class MachineSessionResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => MachineSession, { description: "POST /machine-identity/sessions: the machine's authority for a controller's proof." })
  createMachineSession(@Arg("input", () => CreateMachineSessionInput) input: CreateMachineSessionInput): Promise<MachineSession> {
    return this.deps.machineSessions.create(input.machineId, input.identityProof);
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

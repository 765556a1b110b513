/** GraphQL types of machine sessions (docs/markets-identity.md "Machine sessions"). */
import { Field, InputType, ObjectType } from "type-graphql";
import { IdentityProofInput } from "../market-machine.type.js";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";

@InputType({ description: "POST /machine-identity/sessions: a controller-signed identity challenge for the machine." })
export class CreateMachineSessionInput {
  @Field(() => String, { description: "The market machine (`mach_…`) to act for." })
  machineId!: string;

  @Field(() => IdentityProofInput, { description: "A fresh identity challenge of the machine's identityRef, signed by a controller." })
  identityProof!: IdentityProofInput;
}

@ObjectType({ description: "A machine session: the bearer credential of the machine's authority. The token is shown once." })
export class MachineSession {
  @Field(() => String, { description: "`msess_` + 24 hex characters." })
  sessionId!: string;

  @Field(() => String)
  machineId!: string;

  @Field(() => String, { description: "The controller (EIP-55) whose signature opened the session." })
  controllerAddress!: string;

  @Field(() => String, { description: "HS256 bearer token; send it as `Authorization: Bearer <token>` or `machineSession`." })
  sessionToken!: string;

  @Field(() => DateTimeScalar)
  issuedAt!: string;

  @Field(() => DateTimeScalar)
  expiresAt!: string;
}

/** The `machineSession` argument of every mutation made with a machine's authority. */
export const MACHINE_SESSION_ARG = {
  nullable: true,
  description: "The machine's session token (createMachineSession): its authority for this write, checked before anything else.",
} as const;

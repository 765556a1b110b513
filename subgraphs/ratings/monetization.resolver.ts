import { FieldResolver, Resolver, Root } from "type-graphql";
import { parseMachineId } from "../shared/machine-id.js";
import { RatingsErrors } from "./errors.js";
import { MonetizationState, MonetizationStatus, RatingsMachine } from "./monetization.type.js";
import type { RatingsDeps } from "./deps.js";

@Resolver(() => RatingsMachine)
export class MachineMonetizationResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @FieldResolver(() => MonetizationState, { description: "Current monetization state (no signature needed)." })
  async monetization(@Root() machine: RatingsMachine): Promise<MonetizationState> {
    if (parseMachineId(machine.machineId) === null) {
      throw RatingsErrors.invalidMachineKey();
    }
    const decision = await this.deps.monetization.find(machine.machineId);
    if (!decision) return { machine_id: machine.machineId, status: MonetizationStatus.PENDING, signer: null, updated_at: null };
    return {
      machine_id: machine.machineId,
      status: decision.optedIn ? MonetizationStatus.OPTED_IN : MonetizationStatus.OPTED_OUT,
      signer: decision.signer,
      updated_at: Number(decision.timestamp),
    };
  }
}

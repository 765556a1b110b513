import { FieldResolver, Resolver, Root } from "type-graphql";
import { MarketsMachine, MarketsRegistration } from "./machine.type.js";
import { MarketMachine } from "./market-machine.type.js";
import type { MarketsDeps } from "../deps.js";

/** The markets fields of the federated `Machine` entity (keyed by its decimal on-chain machine ID). */
@Resolver(() => MarketsMachine)
export class MarketsMachineResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @FieldResolver(() => MarketsRegistration, {
    nullable: true,
    description: "The market machine record bound to this on-chain machine, in brief; null when none.",
    deprecationReason: "Use marketMachine { identityRef status createdAt }: the same record, with its runtime endpoints and agents.",
  })
  marketsRegistration(@Root() machine: MarketsMachine): Promise<MarketsRegistration | null> {
    return this.deps.marketMachines.registration(machine.machineId);
  }

  @FieldResolver(() => MarketMachine, {
    nullable: true,
    description: "The market machine record bound to this on-chain machine (with its runtime endpoints and agents); null when none.",
  })
  marketMachine(@Root() machine: MarketsMachine): Promise<MarketMachine | null> {
    return this.deps.marketMachines.byOnChainId(machine.machineId);
  }
}

import { FieldResolver, Resolver, Root } from "type-graphql";
import { MarketsMachine, MarketsRegistration } from "./machine.type.js";
import type { MarketsDeps } from "./deps.js";

@Resolver(() => MarketsMachine)
export class MarketsMachineResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @FieldResolver(() => MarketsRegistration, {
    nullable: true,
    description: "Null until the machine is registered with the machine-markets service.",
  })
  async marketsRegistration(@Root() machine: MarketsMachine): Promise<MarketsRegistration | null> {
    const row = await this.deps.machines.find(machine.machineId);
    return row && { identityRef: row.identityRef, status: row.status, registeredAt: row.registeredAt.toISOString() };
  }
}

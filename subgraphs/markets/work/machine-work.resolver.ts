/**
 * The market machine record's graph and tasks (GraphQL only): `Machine.marketMachine { graph tasks }` reaches them
 * from the federated entity keyed by the on-chain machine ID. Global rule 1 holds here too: a machine that is not
 * active and identity-verified shows null (its own `status` says why).
 */
import { Arg, FieldResolver, Int, Resolver, Root } from "type-graphql";
import { DomainError } from "../../shared/errors.js";
import type { MarketsDeps } from "../deps.js";
import { MachineGraph } from "./graph.type.js";
import { MarketMachine } from "../machines/market-machine.type.js";
import { MarketTaskPage } from "./task.type.js";

async function unlessUnusable<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DomainError && (error.code === "MACHINE_NOT_ACTIVE" || error.code === "MACHINE_NOT_ACTIVATED")) return null;
    throw error;
  }
}

@Resolver(() => MarketMachine)
export class MarketMachineWorkResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @FieldResolver(() => MachineGraph, { nullable: true, description: "The machine's graph; null unless the machine is active and verified." })
  graph(@Root() machine: MarketMachine): Promise<MachineGraph | null> {
    return unlessUnusable(() => this.deps.graph.read(machine.id));
  }

  @FieldResolver(() => MarketTaskPage, { nullable: true, description: "The machine's tasks, newest first; null unless active and verified." })
  tasks(
    @Root() machine: MarketMachine,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MarketTaskPage | null> {
    return unlessUnusable(() => this.deps.tasks.list(machine.id, { limit, cursor }));
  }
}

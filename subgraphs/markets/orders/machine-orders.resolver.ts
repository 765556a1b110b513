/**
 * The market machine record's agent pairings and open orders (GraphQL only): `Machine.marketMachine { agentPairings
 * openOrders }` from the federated entity. Like the record's agents, they show for drafts too (no rule-1 check):
 * they are the record's own state.
 */
import { Arg, FieldResolver, Int, Resolver, Root } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { MarketMachine } from "../machines/market-machine.type.js";
import { OPEN_ORDER_STATUSES } from "./order.states.js";
import { MarketOrderPage } from "./order.type.js";
import { AgentPairingPage } from "./pairing.type.js";

@Resolver(() => MarketMachine)
export class MarketMachineOrdersResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @FieldResolver(() => AgentPairingPage, { description: "The machine's agent pairings, oldest first (every status)." })
  agentPairings(
    @Root() machine: MarketMachine,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<AgentPairingPage> {
    return this.deps.pairings.list(machine.id, limit, cursor, false);
  }

  @FieldResolver(() => MarketOrderPage, { description: "The machine's open market orders (not confirmed, cancelled or failed), newest first." })
  openOrders(
    @Root() machine: MarketMachine,
    @Arg("limit", () => Int, { nullable: true }) limit: number | null,
    @Arg("cursor", () => String, { nullable: true }) cursor: string | null,
  ): Promise<MarketOrderPage> {
    return this.deps.orders.list(machine.id, { limit, cursor }, OPEN_ORDER_STATUSES, false) as never;
  }
}

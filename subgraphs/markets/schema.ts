import type { GraphQLSchema } from "graphql";
import { buildFederatedSchema, dependencyContainer } from "../shared/federation.js";
import { MarketsMachine } from "./machine.type.js";
import { MarketsMachineResolver } from "./machine.resolver.js";
import { MarketMachineResolver } from "./market-machine.resolver.js";
import { MachineAgentResolver } from "./machine-agent.resolver.js";
import { RuntimeEndpointResolver } from "./runtime-endpoint.resolver.js";
import type { MarketsDeps } from "./deps.js";
import { WORK_RESOLVERS } from "./work.resolvers.js";
import { AgentPairingResolver } from "./pairing.resolver.js";
import { MarketOrderResolver } from "./order.resolver.js";
import { MarketMachineOrdersResolver } from "./market-machine-orders.resolver.js";
import { PaymentSettlementResolver } from "./payment-settlement.resolver.js";
import { StreamOrderResolver } from "./stream-order.resolver.js";
import { StreamPurchaseResolver } from "./stream-purchase.resolver.js";
import { STREAM_SELLER_RESOLVERS } from "./stream-seller.resolvers.js";

export function buildMarketsSchema(deps?: MarketsDeps): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [MarketsMachineResolver, MarketMachineResolver, RuntimeEndpointResolver, MachineAgentResolver, ...WORK_RESOLVERS,
      AgentPairingResolver, MarketOrderResolver, MarketMachineOrdersResolver, PaymentSettlementResolver, StreamOrderResolver, StreamPurchaseResolver,
      ...STREAM_SELLER_RESOLVERS],
    orphanedTypes: [MarketsMachine],
    container: deps ? dependencyContainer(deps) : undefined,
    referenceResolvers: {
      Machine: { __resolveReference: (ref: { machineId: string }) => Object.assign(new MarketsMachine(), ref) },
    },
  });
}

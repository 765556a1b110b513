/**
 * @machine-economy/client: typed clients of the platform's REST listeners (types generated from the committed
 * OpenAPI documents) and the flows callers run on them. docs/clients.md in the repository shows each flow.
 */
export { ApiError, FlowError, type ErrorEnvelope } from "./errors.js";
export {
  createMarketsClient,
  createRatings2Client,
  createRatingsClient,
  createVerifyClient,
  ok,
  type ClientOptions,
  type HttpPaths,
  type MarketsClient,
  type MarketsClientOptions,
  type MarketsPaths,
  type Mcr2Paths,
  type Ratings2Client,
  type VerifyClient,
  type VerifyClientOptions,
} from "./clients.js";
export { createGatewayClient, type GatewayClient, type GatewayClientOptions } from "./gateway.js";
export type { FlowProgress, OnProgress } from "./flows/progress.js";
export { submitChipEvidence, type ChipKeys, type SubmittedEvidence } from "./flows/evidence.js";
export { checkMonetizationSignal, setMonetization, type CompatibilitySignal, type MonetizationToggle } from "./flows/monetization.js";
export { openMachineSession, proveIdentity, type MachineSession } from "./flows/machine.js";
export { pairAgent, rotateAgentSession, type AgentPairingRequest } from "./flows/pairing.js";
export { buyService, payOrder, searchQuote, type OrderRequest, type Rail } from "./flows/market.js";
export { buyStream, newStreamBuyer, type StreamBuyer, type StreamPurchaseRequest } from "./flows/stream.js";

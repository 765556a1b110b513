/**
 * Stream seller ingest operations (REST: rest-shim/routes/markets/stream/seller.routes.ts). Agent credentials are
 * the `agentId` / `agentToken` arguments (the shim fills them from the x-machine-agent-* headers or the body).
 */
import { Arg, Int, Mutation, Query, Resolver } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";
import type { MarketsDeps } from "../../deps.js";
import {
  StreamBuyerAccessList, StreamBuyerAccessResult, StreamEventReceipt, StreamEventResult, StreamHeartbeat, StreamPolicy,
  StreamPolicyInput, StreamPolicyPage, StreamSigningKey, StreamSigningKeyResult,
} from "./seller.type.js";

const Str = () => String;
const opt = { nullable: true } as const;
/** Envelopes stay JSON: signed documents (typing would reorder or drop members), validated by the service after the agent's credential. */
const ENVELOPE = "A signed event envelope (docs/stream-marketplace.md), JSON so it stays exactly as signed, its payload free-form by design; "
  + "the service validates it after the agent's credential, with the same error codes on REST and GraphQL.";

@Resolver()
export class StreamSellerResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Mutation(() => StreamSigningKeyResult, { description: "POST /machines/{machineId}/stream/signing-keys." })
  registerStreamSigningKey(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("keyId", Str) keyId: string,
    @Arg("publicKeyHex", Str) publicKeyHex: string,
  ) {
    return this.deps.streamSigningKeys.register(machineId, { agentId, agentToken }, { keyId, publicKeyHex });
  }

  @Mutation(() => StreamSigningKey, { description: "POST /machines/{machineId}/stream/signing-keys/{keyId}/revoke: no new chunk under it." })
  revokeStreamSigningKey(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("keyId", Str) keyId: string,
  ) {
    return this.deps.streamSigningKeys.revoke(machineId, { agentId, agentToken }, keyId);
  }

  @Mutation(() => StreamPolicy, { description: "POST /machines/{machineId}/stream/policies." })
  createStreamPolicy(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("input", () => StreamPolicyInput) input: StreamPolicyInput,
  ) {
    return this.deps.streamPolicies.create(machineId, { agentId, agentToken }, input);
  }

  @Mutation(() => StreamPolicy, { description: "PATCH /machines/{machineId}/stream/policies/{policyId}: bumps version." })
  updateStreamPolicy(
    @Arg("machineId", Str) machineId: string,
    @Arg("policyId", Str) policyId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("input", () => StreamPolicyInput) input: StreamPolicyInput,
  ) {
    return this.deps.streamPolicies.update(machineId, policyId, { agentId, agentToken }, input);
  }

  @Query(() => StreamPolicyPage, { description: "GET /machines/{machineId}/stream/policies." })
  streamPolicies(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", Str, opt) cursor: string | null,
  ) {
    return this.deps.streamPolicies.list(machineId, { agentId, agentToken }, limit, cursor);
  }

  @Mutation(() => StreamHeartbeat, { description: "POST /stream/heartbeat." })
  streamHeartbeat(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("policyId", Str, opt) policyId: string | null,
  ) {
    return this.deps.streamEvents.heartbeat(machineId, { agentId, agentToken }, policyId);
  }

  @Mutation(() => StreamEventResult, { description: "POST /stream/events: 201 new receipt, 200 the existing one." })
  recordStreamEvent(
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("machineId", Str, opt) machineId: string | null,
    @Arg("envelope", () => JSONObjectScalar, { description: ENVELOPE }) envelope: Record<string, unknown>,
  ) {
    return this.deps.streamEvents.record({ agentId, agentToken, machineId }, envelope);
  }

  @Mutation(() => [StreamEventReceipt], { description: "POST /stream/events/batch: all or nothing." })
  recordStreamEventBatch(
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("machineId", Str, opt) machineId: string | null,
    @Arg("items", () => [JSONObjectScalar], { description: `1..the batch limit of envelopes, all or nothing. ${ENVELOPE}` }) items: Record<string, unknown>[],
  ) {
    return this.deps.streamEvents.recordBatch({ agentId, agentToken, machineId }, items);
  }

  @Mutation(() => StreamEventReceipt, { description: "PATCH /stream/events/{receiptId}/chain-receipt." })
  recordStreamChainReceipt(
    @Arg("receiptId", Str) receiptId: string,
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("txHash", Str) txHash: string,
    @Arg("dataHash", Str) dataHash: string,
  ) {
    return this.deps.streamEvents.chainReceipt(receiptId, { machineId, agentId, agentToken }, { txHash, dataHash });
  }

  @Mutation(() => StreamBuyerAccessResult, { description: "POST /stream/buyer-access." })
  uploadStreamBuyerAccess(
    @Arg("machineId", Str) machineId: string,
    @Arg("agentId", Str, opt) agentId: string | null,
    @Arg("agentToken", Str, opt) agentToken: string | null,
    @Arg("access", () => JSONObjectScalar, {
      description: "A signed peaq.stream.buyer-access.v1 document, JSON so it stays exactly as signed; the service validates it after the agent's credential, as on REST.",
    })
    access: Record<string, unknown>,
  ) {
    return this.deps.streamBuyerAccess.upload(machineId, { agentId, agentToken }, access);
  }

  @Query(() => StreamBuyerAccessList, { description: "GET /stream/chunks/{chunkId}/buyer-access?buyerId=." })
  async streamBuyerAccess(@Arg("chunkId", Str) chunkId: string, @Arg("buyerId", Str) buyerId: string) {
    return { items: await this.deps.streamBuyerAccess.forBuyer(chunkId, buyerId) };
  }
}

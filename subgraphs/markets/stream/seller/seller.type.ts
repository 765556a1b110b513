/** GraphQL types of the stream seller side: signing keys, policies, ingest receipts, chunks, buyer access. */
import { Field, Float, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { DateTimeScalar } from "../../../shared/date-time.scalar.js";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";

import { statusEnum } from "../../common/status-enum.js";
import { POLICY_STATUSES } from "./stream-policy.service.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;
const D = () => DateTimeScalar;

/** A signing key's state; internal values are the stored spellings (REST: lowercase). */
export enum StreamSigningKeyStatus {
  ACTIVE = "active",
  REVOKED = "revoked",
}
registerEnumType(StreamSigningKeyStatus, {
  name: "StreamSigningKeyStatus",
  description: "ACTIVE -> REVOKED: a revoked key vouches only for chunks registered before its revokedAt (REST: lowercase).",
});

/** A capture policy's state, over the service's state list (REST: lowercase). */
export const StreamPolicyStatus = statusEnum("StreamPolicyStatus", POLICY_STATUSES, "A capture policy's state (REST: lowercase).");
export type StreamPolicyStatus = (typeof POLICY_STATUSES)[number];

/** Free-form JSON kept as the agent wrote it. */
const FREE = "Free-form JSON by design, stored and answered as written.";
/** Signed documents stay JSON: typing them would reorder or drop members and break the signature they carry. */
const SIGNED = "A signed document, kept as JSON so its members and signature stay exactly as signed.";

@ObjectType({ description: "An Ed25519 key a machine's stream agent registered (manifests and envelopes verify against it)." })
export class StreamSigningKey {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) agentId!: string;
  @Field(S) keyId!: string;
  @Field(S, { description: "ed25519." }) algorithm!: string;
  @Field(S, { description: "32-byte public key, lowercase hex." }) publicKeyHex!: string;
  @Field(() => StreamSigningKeyStatus) status!: StreamSigningKeyStatus;
  @Field(D, N) revokedAt!: string | null;
  @Field(D) createdAt!: string;
}

@ObjectType()
export class StreamSigningKeyResult {
  @Field(() => Boolean, { description: "False when the same keyId and key were already registered." }) created!: boolean;
  @Field(() => StreamSigningKey) key!: StreamSigningKey;
}

@InputType()
export class StreamPolicyInput {
  @Field(() => String, N) name?: string | null;
  @Field(() => String, {
    nullable: true,
    description: "active | paused | archived (default active). A string, not StreamPolicyStatus: the service checks it after the agent's "
      + "credential, so a bad value is VALIDATION_ERROR only for the machine's own agent, on REST and GraphQL alike.",
  })
  status?: string | null;
  @Field(() => [JSONObjectScalar], {
    nullable: true,
    description: "Topic rules { topic, messageType, qosPreset, depth?, fieldRules? } (docs/stream-marketplace.md). JSON because the service "
      + "validates them after the agent's credential (VALIDATION_ERROR, as on REST).",
  })
  topicRules?: Record<string, unknown>[] | null;
  @Field(() => JSONObjectScalar, { nullable: true, description: FREE }) buffer?: Record<string, unknown> | null;
  @Field(() => JSONObjectScalar, { nullable: true, description: FREE }) payload?: Record<string, unknown> | null;
  @Field(() => [JSONObjectScalar], { nullable: true, description: FREE }) destinations?: Record<string, unknown>[] | null;
}

@ObjectType({ description: "A stream capture policy; every update bumps version." })
export class StreamPolicy {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) name!: string;
  @Field(() => StreamPolicyStatus) status!: StreamPolicyStatus;
  @Field(() => Int) version!: number;
  @Field(() => [JSONObjectScalar], { description: "Topic rules as written (checked on write)." }) topicRules!: unknown[];
  @Field(J, { description: FREE }) buffer!: Record<string, unknown>;
  @Field(J, { description: FREE }) payload!: Record<string, unknown>;
  @Field(() => [JSONObjectScalar], { description: FREE }) destinations!: unknown[];
  @Field(D) createdAt!: string;
  @Field(D) updatedAt!: string;
}

@ObjectType()
export class StreamPolicyPage {
  @Field(() => [StreamPolicy]) items!: StreamPolicy[];
  @Field(() => String, N) nextCursor!: string | null;
}

@ObjectType()
export class StreamHeartbeat {
  @Field(S) machineId!: string;
  @Field(S) agentId!: string;
  @Field(() => String, N) policyId!: string | null;
  @Field(() => Int, N) policyVersion!: number | null;
  @Field(D) receivedAt!: string;
}

@ObjectType()
export class StreamChainReceipt {
  @Field(S) txHash!: string;
  @Field(S) dataHash!: string;
  @Field(D) recordedAt!: string;
}

@ObjectType({ description: "The receipt of an event envelope." })
export class StreamEventReceipt {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) agentId!: string;
  @Field(S) topic!: string;
  @Field(() => Float) sequenceNumber!: number;
  @Field(S) payloadHash!: string;
  @Field(() => String, N) policyId!: string | null;
  @Field(() => Int, N) policyVersion!: number | null;
  @Field(D) receivedAt!: string;
  @Field(() => StreamChainReceipt, N) chainReceipt!: StreamChainReceipt | null;
}

@ObjectType()
export class StreamEventResult {
  @Field(() => Boolean) created!: boolean;
  @Field(() => StreamEventReceipt) receipt!: StreamEventReceipt;
}

@ObjectType({ description: "A chunk manifest as registered; its ciphertext is at storageRef once a checked upload stored it." })
export class StreamChunk {
  @Field(S) chunkId!: string;
  @Field(S) machineId!: string;
  @Field(S) agentId!: string;
  @Field(S) keyId!: string;
  @Field(() => Int) index!: number;
  @Field(() => String, N) previousChunkId!: string | null;
  @Field(S) plaintextHash!: string;
  @Field(S) encryptedDataHash!: string;
  @Field(() => Float) encryptedSize!: number;
  @Field(() => String, N) storageRef!: string | null;
  @Field(() => Boolean) stored!: boolean;
  @Field(D, N) storedVerifiedAt!: string | null;
  @Field(J, { description: `The chunk manifest. ${SIGNED}` }) manifest!: Record<string, unknown>;
  @Field(() => JSONObjectScalar, { nullable: true, description: `The agent's metadata (timeStart / timeEnd are read from it). ${FREE}` })
  metadata!: Record<string, unknown> | null;
  @Field(D) createdAt!: string;
}

@ObjectType()
export class StreamChunkResult {
  @Field(() => Boolean) created!: boolean;
  @Field(() => StreamChunk) chunk!: StreamChunk;
}

@ObjectType({ description: "Where an authorised upload goes (the shim streams the body there, then commits it)." })
export class StreamChunkUploadTarget {
  @Field(S) chunkId!: string;
  @Field(S) machineId!: string;
  @Field(S) bucket!: string;
  @Field(S) key!: string;
  @Field(() => Float) encryptedSize!: number;
  @Field(S) encryptedDataHash!: string;
}

@ObjectType({ description: "Where a chunk's ciphertext is, for the holder of a delivery token covering it." })
export class StreamChunkDownloadTarget {
  @Field(S) chunkId!: string;
  @Field(S) storageRef!: string;
  @Field(() => Float) encryptedSize!: number;
  @Field(S) encryptedDataHash!: string;
}

@ObjectType({ description: "A chunk key re-wrapped to a buyer (peaq.stream.buyer-access.v1)." })
export class StreamBuyerAccess {
  @Field(S) id!: string;
  @Field(S) chunkId!: string;
  @Field(S) machineId!: string;
  @Field(S) buyerId!: string;
  @Field(S) publicKeyHex!: string;
  @Field(() => String, N) orderId!: string | null;
  @Field(() => String, N) purchaseId!: string | null;
  @Field(J, { description: `The peaq.stream.buyer-access.v1 document. ${SIGNED}` }) access!: Record<string, unknown>;
  @Field(D) createdAt!: string;
}

@ObjectType()
export class StreamBuyerAccessResult {
  @Field(() => Boolean) created!: boolean;
  @Field(() => StreamBuyerAccess) access!: StreamBuyerAccess;
}

@ObjectType()
export class StreamBuyerAccessList {
  @Field(() => [StreamBuyerAccess]) items!: StreamBuyerAccess[];
}

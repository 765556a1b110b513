/** GraphQL types of the stream seller side: signing keys, policies, ingest receipts, chunks, buyer access. */
import { Field, Float, InputType, Int, ObjectType } from "type-graphql";
import { JSONObjectScalar } from "../../../shared/json-object.scalar.js";

const S = () => String;
const N = { nullable: true } as const;
const J = () => JSONObjectScalar;

@ObjectType({ description: "An Ed25519 key a machine's stream agent registered (manifests and envelopes verify against it)." })
export class StreamSigningKey {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) agentId!: string;
  @Field(S) keyId!: string;
  @Field(S, { description: "ed25519." }) algorithm!: string;
  @Field(S, { description: "32-byte public key, lowercase hex." }) publicKeyHex!: string;
  @Field(S, { description: "active | revoked." }) status!: string;
  @Field(() => String, N) revokedAt!: string | null;
  @Field(S) createdAt!: string;
}

@ObjectType()
export class StreamSigningKeyResult {
  @Field(() => Boolean, { description: "False when the same keyId and key were already registered." }) created!: boolean;
  @Field(() => StreamSigningKey) key!: StreamSigningKey;
}

@InputType()
export class StreamPolicyInput {
  @Field(() => String, N) name?: string | null;
  @Field(() => String, { nullable: true, description: "active | paused | archived." }) status?: string | null;
  @Field(() => [JSONObjectScalar], N) topicRules?: Record<string, unknown>[] | null;
  @Field(() => JSONObjectScalar, N) buffer?: Record<string, unknown> | null;
  @Field(() => JSONObjectScalar, N) payload?: Record<string, unknown> | null;
  @Field(() => [JSONObjectScalar], N) destinations?: Record<string, unknown>[] | null;
}

@ObjectType({ description: "A stream capture policy; every update bumps version." })
export class StreamPolicy {
  @Field(S) id!: string;
  @Field(S) machineId!: string;
  @Field(S) name!: string;
  @Field(S) status!: string;
  @Field(() => Int) version!: number;
  @Field(() => [JSONObjectScalar]) topicRules!: unknown[];
  @Field(J) buffer!: Record<string, unknown>;
  @Field(J) payload!: Record<string, unknown>;
  @Field(() => [JSONObjectScalar]) destinations!: unknown[];
  @Field(S) createdAt!: string;
  @Field(S) updatedAt!: string;
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
  @Field(S) receivedAt!: string;
}

@ObjectType()
export class StreamChainReceipt {
  @Field(S) txHash!: string;
  @Field(S) dataHash!: string;
  @Field(S) recordedAt!: string;
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
  @Field(S) receivedAt!: string;
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
  @Field(() => String, N) storedVerifiedAt!: string | null;
  @Field(J) manifest!: Record<string, unknown>;
  @Field(() => JSONObjectScalar, N) metadata!: Record<string, unknown> | null;
  @Field(S) createdAt!: string;
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
  @Field(J) access!: Record<string, unknown>;
  @Field(S) createdAt!: string;
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

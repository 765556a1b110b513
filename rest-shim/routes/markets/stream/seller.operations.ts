/** The named GraphQL operations behind the stream seller routes (rest-shim/routes/markets/stream/seller.routes.ts). */
import { op } from "../http.js";


const KEY = "id machineId agentId keyId algorithm publicKeyHex status revokedAt createdAt";
const POLICY = "id machineId name status version topicRules buffer payload destinations createdAt updatedAt";
const RECEIPT = "id machineId agentId topic sequenceNumber payloadHash policyId policyVersion receivedAt chainReceipt { txHash dataHash recordedAt }";
export const CHUNK = `chunkId machineId agentId keyId index previousChunkId plaintextHash encryptedDataHash encryptedSize storageRef stored
  storedVerifiedAt manifest metadata createdAt`;
const ACCESS = "id chunkId machineId buyerId publicKeyHex orderId purchaseId access createdAt";
const LISTING = `id machineId identityRef title topic chunkIds chunkCount totalBytes storageProvider price { amount currency } pricePerChunk
  timeStart timeEnd status serviceId createdAt updatedAt`;
const CREDS = "$agentId: String, $agentToken: String";
const PASS = "agentId: $agentId, agentToken: $agentToken";

export const STREAM_SELLER_OPERATIONS = {
  registerStreamSigningKey: op(
    "RegisterStreamSigningKey",
    `mutation RegisterStreamSigningKey($machineId: String!, ${CREDS}, $keyId: String!, $publicKeyHex: String!) {
  registerStreamSigningKey(machineId: $machineId, ${PASS}, keyId: $keyId, publicKeyHex: $publicKeyHex) { created key { ${KEY} } }
}`,
  ),
  revokeStreamSigningKey: op(
    "RevokeStreamSigningKey",
    `mutation RevokeStreamSigningKey($machineId: String!, ${CREDS}, $keyId: String!) {
  revokeStreamSigningKey(machineId: $machineId, ${PASS}, keyId: $keyId) { ${KEY} }
}`,
  ),
  createStreamPolicy: op(
    "CreateStreamPolicy",
    `mutation CreateStreamPolicy($machineId: String!, ${CREDS}, $input: StreamPolicyInput!) {
  createStreamPolicy(machineId: $machineId, ${PASS}, input: $input) { ${POLICY} }
}`,
  ),
  updateStreamPolicy: op(
    "UpdateStreamPolicy",
    `mutation UpdateStreamPolicy($machineId: String!, $policyId: String!, ${CREDS}, $input: StreamPolicyInput!) {
  updateStreamPolicy(machineId: $machineId, policyId: $policyId, ${PASS}, input: $input) { ${POLICY} }
}`,
  ),
  streamPolicies: op(
    "StreamPolicies",
    `query StreamPolicies($machineId: String!, ${CREDS}, $limit: Int, $cursor: String) {
  streamPolicies(machineId: $machineId, ${PASS}, limit: $limit, cursor: $cursor) { items { ${POLICY} } nextCursor }
}`,
  ),
  streamHeartbeat: op(
    "StreamHeartbeat",
    `mutation StreamHeartbeat($machineId: String!, ${CREDS}, $policyId: String) {
  streamHeartbeat(machineId: $machineId, ${PASS}, policyId: $policyId) { machineId agentId policyId policyVersion receivedAt }
}`,
  ),
  recordStreamEvent: op(
    "RecordStreamEvent",
    `mutation RecordStreamEvent(${CREDS}, $machineId: String, $envelope: JSONObject!) {
  recordStreamEvent(${PASS}, machineId: $machineId, envelope: $envelope) { created receipt { ${RECEIPT} } }
}`,
  ),
  recordStreamEventBatch: op(
    "RecordStreamEventBatch",
    `mutation RecordStreamEventBatch(${CREDS}, $machineId: String, $items: [JSONObject!]!) {
  recordStreamEventBatch(${PASS}, machineId: $machineId, items: $items) { ${RECEIPT} }
}`,
  ),
  recordStreamChainReceipt: op(
    "RecordStreamChainReceipt",
    `mutation RecordStreamChainReceipt($receiptId: String!, $machineId: String!, ${CREDS}, $txHash: String!, $dataHash: String!) {
  recordStreamChainReceipt(receiptId: $receiptId, machineId: $machineId, ${PASS}, txHash: $txHash, dataHash: $dataHash) { ${RECEIPT} }
}`,
  ),
  uploadStreamBuyerAccess: op(
    "UploadStreamBuyerAccess",
    `mutation UploadStreamBuyerAccess($machineId: String!, ${CREDS}, $access: JSONObject!) {
  uploadStreamBuyerAccess(machineId: $machineId, ${PASS}, access: $access) { created access { ${ACCESS} } }
}`,
  ),
  streamBuyerAccess: op(
    "StreamBuyerAccess",
    `query StreamBuyerAccess($chunkId: String!, $buyerId: String!) {
  streamBuyerAccess(chunkId: $chunkId, buyerId: $buyerId) { items { ${ACCESS} } }
}`,
  ),
  registerStreamChunk: op(
    "RegisterStreamChunk",
    `mutation RegisterStreamChunk($machineId: String!, ${CREDS}, $manifest: JSONObject!, $metadata: JSONObject) {
  registerStreamChunk(machineId: $machineId, ${PASS}, manifest: $manifest, metadata: $metadata) { created chunk { ${CHUNK} } }
}`,
  ),
  streamChunkUploadTarget: op(
    "StreamChunkUploadTarget",
    `query StreamChunkUploadTarget($chunkId: String!, ${CREDS}) {
  streamChunkUploadTarget(chunkId: $chunkId, ${PASS}) { chunkId machineId bucket key encryptedSize encryptedDataHash }
}`,
  ),
  commitStreamChunkData: op(
    "CommitStreamChunkData",
    `mutation CommitStreamChunkData($chunkId: String!, ${CREDS}, $storageRef: String!) {
  commitStreamChunkData(chunkId: $chunkId, ${PASS}, storageRef: $storageRef) { ${CHUNK} }
}`,
  ),
  streamChunkDownload: op(
    "StreamChunkDownload",
    `query StreamChunkDownload($chunkId: String!, $deliveryToken: String) {
  streamChunkDownload(chunkId: $chunkId, deliveryToken: $deliveryToken) { chunkId storageRef encryptedSize encryptedDataHash }
}`,
  ),
  createStreamListing: op(
    "CreateStreamListing",
    `mutation CreateStreamListing($machineId: String!, ${CREDS}, $input: CreateStreamListingInput!) {
  createStreamListing(machineId: $machineId, ${PASS}, input: $input) { ${LISTING} }
}`,
  ),
  deactivateStreamListing: op(
    "DeactivateStreamListing",
    `mutation DeactivateStreamListing($machineId: String!, $listingId: String!, ${CREDS}) {
  deactivateStreamListing(machineId: $machineId, listingId: $listingId, ${PASS}) { ${LISTING} }
}`,
  ),
  reactivateStreamListing: op(
    "ReactivateStreamListing",
    `mutation ReactivateStreamListing($machineId: String!, $listingId: String!, ${CREDS}) {
  reactivateStreamListing(machineId: $machineId, listingId: $listingId, ${PASS}) { ${LISTING} }
}`,
  ),
  streamListings: op(
    "StreamListings",
    `query StreamListings($machineId: String, $storageProvider: String, $includeInactive: Boolean, $from: String, $to: String, $limit: Int, $cursor: String) {
  streamListings(machineId: $machineId, storageProvider: $storageProvider, includeInactive: $includeInactive, from: $from, to: $to, limit: $limit, cursor: $cursor) {
    items { ${LISTING} } nextCursor
  }
}`,
  ),
  streamListing: op(
    "StreamListing",
    `query StreamListing($listingId: String!) {
  streamListing(listingId: $listingId) { ${LISTING} }
}`,
  ),
  streamListingChunks: op(
    "StreamListingChunks",
    `query StreamListingChunks($listingId: String!, $limit: Int, $cursor: String) {
  streamListingChunks(listingId: $listingId, limit: $limit, cursor: $cursor) {
    listingId machineId machineDid signingKeys { ${KEY} } items { chunkId index encryptedSize registeredAt manifest } nextCursor
  }
}`,
  ),
};

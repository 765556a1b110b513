/**
 * Stream marketplace, seller side (docs/stream-marketplace.md): signing keys, policies, heartbeat, events,
 * chunks (manifests; the binary data routes of rest-shim/stream-data.ts), buyer access, listings. Operations in
 * rest-shim/routes/markets/stream/seller.operations.ts.
 *
 * Seller agent credentials: `x-machine-agent-id` + `x-machine-agent-token` headers, or `agentId` / `agentToken` body
 * members (headers win). A repeated header is AGENT_AUTH_INVALID. The subgraph answers AGENT_AUTH_REQUIRED when
 * neither is given (after global rule 1 on routes naming a machine).
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../../../json-body.js";
import type { RouteDefinition } from "../../../route-definition.js";
import { serveChunkDownload, uploadServer } from "../../../stream-data.js";
import { bearerToken } from "../../../../subgraphs/markets/stream/seller/delivery.token.js";
import { MAX_CHUNK_SIZE } from "../../../../subgraphs/markets/stream/stream.js";
import { bodyObject, itemOf, marketsRoute, pageOf, pageQuery, pick, queryParam, upsertedItemOf, withJsonBodyLimit, type View } from "../http.js";
import { STREAM_SELLER_OPERATIONS as OPS } from "./seller.operations.js";
import { fieldOf, type RouteOutcome } from "../../../route-definition.js";
import { STREAM_DATA_DOCS } from "./seller.docs.js";

export { STREAM_SELLER_OPERATIONS } from "./seller.operations.js";

const invalid = () => new RouteInputError("VALIDATION_ERROR");

/** A chunkId path parameter, percent-decoded (`sha256%3A…` as clients encode the colon). */
function chunkIdOf(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? "");
  } catch {
    throw invalid();
  }
}
const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

/** Any other percent-encoded path parameter (a keyId may carry `:`). */
const pathParam = (raw: string | undefined) => chunkIdOf(raw);

/** The agent credentials of a request: headers first, then the body's members. */
export function agentCredentialsOf(headers: Readonly<IncomingHttpHeaders>, source: Record<string, unknown> = {}) {
  const id = headers["x-machine-agent-id"];
  const token = headers["x-machine-agent-token"];
  if (Array.isArray(id) || Array.isArray(token)) throw new RouteInputError("AGENT_AUTH_INVALID");
  const body = pick(source, { agentId: "string?", agentToken: "string?" });
  return { agentId: id ?? (body.agentId as string | undefined) ?? null, agentToken: token ?? (body.agentToken as string | undefined) ?? null };
}

const guardedPath = (body: unknown = {}, params: Record<string, string> = {}) => ({ kind: "guarded", machineIn: "path", sample: { body, params } }) as const;
const guardedBody = (body: Record<string, unknown>, params: Record<string, string> = {}) =>
  ({ kind: "guarded", machineIn: "body", sample: { body: { machineId: "{machineId}", ...body }, params } }) as const;
const created = (field: string, member: string, view?: View) => upsertedItemOf(field, member, view);
const CHUNK_SAMPLE = `sha256:${"0".repeat(64)}`;

const POLICY_SHAPE = { name: "string?", status: "string?", topicRules: "object[]?", buffer: "object?", payload: "object?", destinations: "object[]?" } as const;

const ingestRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/machines/:machineId/stream/signing-keys",
    body: true,
    operation: OPS.registerStreamSigningKey,
    machineRule: guardedPath({ keyId: "k1", publicKeyHex: "0".repeat(64) }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      return { machineId: params.machineId, ...agentCredentialsOf(headers, source), ...pick(source, { keyId: "string", publicKeyHex: "string" }) };
    },
    respond: created("registerStreamSigningKey", "key"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/machines/:machineId/stream/signing-keys/:keyId/revoke",
    body: true,
    operation: OPS.revokeStreamSigningKey,
    machineRule: guardedPath({}, { keyId: "k1" }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body, true);
      return { machineId: params.machineId, keyId: pathParam(params.keyId), ...agentCredentialsOf(headers, source) };
    },
    respond: itemOf("revokeStreamSigningKey", 200),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/machines/:machineId/stream/policies",
    body: true,
    operation: OPS.createStreamPolicy,
    machineRule: guardedPath({ name: "p", topicRules: [], buffer: {}, payload: {}, destinations: [] }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      return { machineId: params.machineId, ...agentCredentialsOf(headers, source), input: pick(source, POLICY_SHAPE) };
    },
    respond: itemOf("createStreamPolicy", 201),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "GET",
    path: "/machines/:machineId/stream/policies",
    operation: OPS.streamPolicies,
    machineRule: guardedPath(),
    variables: ({ params, headers, query }) => ({ machineId: params.machineId, ...agentCredentialsOf(headers), ...pageQuery(query) }),
    respond: pageOf("streamPolicies"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "PATCH",
    path: "/machines/:machineId/stream/policies/:policyId",
    body: true,
    operation: OPS.updateStreamPolicy,
    machineRule: guardedPath({}, { policyId: "spol_000000000000000000000000" }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      return { machineId: params.machineId, policyId: params.policyId, ...agentCredentialsOf(headers, source), input: pick(source, POLICY_SHAPE) };
    },
    respond: itemOf("updateStreamPolicy", 200),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/heartbeat",
    body: true,
    operation: OPS.streamHeartbeat,
    machineRule: guardedBody({}),
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      return { ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string", policyId: "string?" }) };
    },
    respond: itemOf("streamHeartbeat"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/events",
    body: true,
    operation: OPS.recordStreamEvent,
    // The machine is the envelope's; the service applies rule 1 to it.
    machineRule: { kind: "none" },
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      return { ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string?", envelope: "object" }) };
    },
    respond: created("recordStreamEvent", "receipt"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/events/batch",
    body: true,
    operation: OPS.recordStreamEventBatch,
    machineRule: { kind: "none" },
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      return { ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string?", items: "object[]" }) };
    },
    respond: (data): RouteOutcome => ({ status: 201, body: json({ items: fieldOf(data, "recordStreamEventBatch") }) }),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "PATCH",
    path: "/stream/events/:receiptId/chain-receipt",
    body: true,
    operation: OPS.recordStreamChainReceipt,
    machineRule: guardedBody({ txHash: `0x${"0".repeat(64)}`, dataHash: `sha256:${"0".repeat(64)}` }, { receiptId: "sevt_000000000000000000000000" }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      return { receiptId: params.receiptId, ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string", txHash: "string", dataHash: "string" }) };
    },
    respond: itemOf("recordStreamChainReceipt"),
  }),
];

const chunkRoutes: RouteDefinition[] = [
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/chunks",
    body: true,
    operation: OPS.registerStreamChunk,
    machineRule: guardedBody({ manifest: {} }),
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      return { ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string", manifest: "object", metadata: "object?" }) };
    },
    respond: created("registerStreamChunk", "chunk"),
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "PUT",
    path: "/stream/chunks/:chunkId/data",
    octetBody: MAX_CHUNK_SIZE,
    operation: OPS.streamChunkUploadTarget,
    machineRule: { kind: "none" },
    variables: ({ params, headers }) => ({ chunkId: chunkIdOf(params.chunkId), ...agentCredentialsOf(headers) }),
    respond: itemOf("streamChunkUploadTarget"),
    raw: { serve: uploadServer(OPS.commitStreamChunkData), docs: STREAM_DATA_DOCS.upload },
  }),
  marketsRoute({ caller: { kind: "delivery-token" },
    method: "GET",
    path: "/stream/chunks/:chunkId/data",
    operation: OPS.streamChunkDownload,
    machineRule: { kind: "none" },
    variables: ({ params, headers }) => {
      if (Array.isArray(headers.authorization)) throw new RouteInputError("DELIVERY_TOKEN_INVALID");
      if (headers.authorization !== undefined && bearerToken(headers.authorization) === null) throw new RouteInputError("DELIVERY_TOKEN_INVALID");
      return { chunkId: chunkIdOf(params.chunkId), deliveryToken: bearerToken(headers.authorization) };
    },
    respond: itemOf("streamChunkDownload"),
    raw: { serve: serveChunkDownload, docs: STREAM_DATA_DOCS.download },
  }),
  marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/stream/buyer-access",
    body: true,
    operation: OPS.uploadStreamBuyerAccess,
    machineRule: guardedBody({ access: {} }),
    variables: ({ headers, body }) => {
      const source = bodyObject(body);
      return { ...agentCredentialsOf(headers, source), ...pick(source, { machineId: "string", access: "object" }) };
    },
    respond: created("uploadStreamBuyerAccess", "access"),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/chunks/:chunkId/buyer-access",
    operation: OPS.streamBuyerAccess,
    machineRule: { kind: "none" },
    variables: ({ params, query }) => {
      const buyerId = queryParam(query, "buyerId");
      if (buyerId === null) throw invalid();
      return { chunkId: chunkIdOf(params.chunkId), buyerId };
    },
    respond: (data): RouteOutcome => ({ status: 200, body: json({ items: fieldOf(data, "streamBuyerAccess").items }) }),
  }),
];

/** The listing's chunks page: `{ items, nextCursor?, listingId, machineId, machineDid, signingKeys }`. */
const listingChunks = (data: Record<string, unknown>): RouteOutcome => {
  const { nextCursor, ...page } = fieldOf(data, "streamListingChunks");
  return { status: 200, body: json(nextCursor == null ? page : { ...page, nextCursor }) };
};

/** A listing names up to 10,000 chunk IDs (MAX_LISTING_CHUNKS, ~72 bytes each in JSON): 1 MiB, still bounded. */
export const LISTING_BODY_LIMIT = 1024 * 1024;

const listingRoutes: RouteDefinition[] = [
  withJsonBodyLimit(marketsRoute({ caller: { kind: "machine-agent" },
    method: "POST",
    path: "/machines/:machineId/stream/listings",
    body: true,
    operation: OPS.createStreamListing,
    machineRule: guardedPath({ title: "t", chunkIds: [CHUNK_SAMPLE], price: { amount: "1", currency: "USD" } }),
    variables: ({ params, headers, body }) => {
      const source = bodyObject(body);
      const input = pick(source, { title: "string", chunkIds: "string[]", price: "object", topic: "string?", pricePerChunk: "string?" });
      input.price = pick(input.price as Record<string, unknown>, { amount: "string", currency: "string" });
      return { machineId: params.machineId, ...agentCredentialsOf(headers, source), input };
    },
    respond: itemOf("createStreamListing", 201),
  }), LISTING_BODY_LIMIT),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/listings",
    operation: OPS.streamListings,
    machineRule: { kind: "guarded", machineIn: "query", sample: { query: { machineId: "{machineId}" } } },
    variables: ({ query }) => {
      const inactive = queryParam(query, "includeInactive");
      if (inactive !== null && inactive !== "true" && inactive !== "false") throw invalid();
      return {
        machineId: queryParam(query, "machineId"),
        storageProvider: queryParam(query, "storageProvider"),
        includeInactive: inactive === "true",
        from: queryParam(query, "from"),
        to: queryParam(query, "to"),
        ...pageQuery(query),
      };
    },
    respond: pageOf("streamListings"),
  }),
  ...(["deactivate", "reactivate"] as const).map((action) =>
    marketsRoute({ caller: { kind: "machine-agent" },
      method: "POST",
      path: `/machines/:machineId/stream/listings/:listingId/${action}`,
      body: true,
      operation: action === "deactivate" ? OPS.deactivateStreamListing : OPS.reactivateStreamListing,
      machineRule: guardedPath({}, { listingId: "slst_000000000000000000000000" }),
      variables: ({ params, headers, body }) => ({
        machineId: params.machineId, listingId: params.listingId, ...agentCredentialsOf(headers, bodyObject(body, true)),
      }),
      respond: itemOf(`${action}StreamListing`, 200),
    })),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/listings/:listingId",
    operation: OPS.streamListing,
    machineRule: { kind: "none" },
    variables: ({ params }) => ({ listingId: params.listingId }),
    respond: itemOf("streamListing", 200),
  }),
  marketsRoute({ caller: { kind: "public", reason: "a read" },
    method: "GET",
    path: "/stream/listings/:listingId/chunks",
    operation: OPS.streamListingChunks,
    machineRule: { kind: "none" },
    variables: ({ params, query }) => ({ listingId: params.listingId, ...pageQuery(query) }),
    respond: listingChunks,
  }),
];

export const STREAM_SELLER_ROUTES: RouteDefinition[] = [...ingestRoutes, ...chunkRoutes, ...listingRoutes];

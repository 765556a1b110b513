/** What the OpenAPI document says about the two binary stream routes (rest-shim/stream-data.ts). */
const HEADERS = {
  "Accept-Ranges": { schema: { type: "string", const: "bytes" } },
  "x-stream-chunk-id": { description: "The chunkId (sha256:<hex>).", schema: { type: "string" } },
  "x-stream-encrypted-data-hash": { description: "The manifest's encryptedDataHash: check the bytes against it.", schema: { type: "string" } },
};
const BYTES = { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } };

export const STREAM_DATA_DOCS = {
  upload: {
    description:
      "Shim-side binary route: the named operation authorises the agent (x-machine-agent-id / x-machine-agent-token) and names where the bytes go; the body is streamed into the local storage driver, then `CommitStreamChunkData` re-reads it and checks its size and SHA-256 against the manifest (CIPHERTEXT_SIZE_MISMATCH / CIPHERTEXT_HASH_MISMATCH: nothing is stored). Answers `{ item: StreamChunk }`.",
    requestBody: { required: true, description: "The chunk's ciphertext, exactly encryptedSize bytes.", content: BYTES },
    responses: { "200": { description: "Stored (or already stored): `{ item }` with the chunk, `stored: true`.", content: { "application/json": { schema: { type: "object", additionalProperties: true } } } } },
  },
  download: {
    description:
      "Shim-side binary route: the named operation checks `Authorization: Bearer <deliveryToken>` (scoped to chunk IDs); the ciphertext is streamed from storage. One `Range: bytes=a-b | a- | -n` answers 206; an unsatisfiable one 416 with `Content-Range: bytes */<size>`; a malformed or multi-range header is ignored (200).",
    responses: {
      "200": { description: "The whole ciphertext.", headers: HEADERS, content: BYTES },
      "206": { description: "The requested range, with Content-Range.", headers: { ...HEADERS, "Content-Range": { schema: { type: "string" } } }, content: BYTES },
    },
  },
};

/**
 * Seller chunks over the real routes: POST /stream/chunks (manifest verified: signature by a registered
 * key, chunkId recomputed, chain link), PUT /stream/chunks/:chunkId/data (size and SHA-256 checked, nothing stored
 * on a mismatch), GET /stream/chunks/:chunkId/data (bearer delivery token scoped to the chunk, Range).
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_CHUNK_SIZE, signManifest, type EncryptedChunk } from "../../../subgraphs/markets/stream/index.js";
import { rawRequest } from "../../support/http.js";
import {
  api, buildChunks, createSeller, enrollAgent, expectMarketsError, expectOk, marketsServices, PLATFORM_START_TIMEOUT_MS, postChunk,
  prismaOf, putChunkData, sellerHeaders, signingKey, startMarketsPlatform, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let other: StreamSeller;
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };
beforeAll(async () => {
  p = await startMarketsPlatform({}, { clock });
  seller = await createSeller(p, 0);
  other = await createSeller(p, 1);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => ({
  chunks: await prismaOf(p).streamChunk.findMany({ orderBy: { chunkId: "asc" } }),
  audit: await prismaOf(p).marketAuditEvent.count(),
  files: await listFiles(path.join(p.dataDir, "stream-chunks")),
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)).sort();
}

async function download(chunkId: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${p.markets}/api/v1/stream/chunks/${encodeURIComponent(chunkId)}/data`, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body, json: () => JSON.parse(body.toString("utf8")) };
}

const tokenFor = async (chunkIds: string[], nowMs = Date.now()) =>
  (await marketsServices(p).deliveryTokens.issue({ scope: { orderId: "sord_test" }, buyerId: "buyer-1", chunkIds }, nowMs)).token;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("POST /stream/chunks", () => {
  it("201 registers a verified manifest with its audit event; the same manifest again answers it (200)", async () => {
    const [chunk] = buildChunks(seller, 1);
    const before = await prismaOf(p).marketAuditEvent.count();
    const item = expectOk(await postChunk(p, seller, chunk!.manifest, { topic: "/camera" }), 201).item;
    expect(item).toMatchObject({ chunkId: chunk!.manifest.chunkId, machineId: seller.machineId, agentId: seller.agentId, index: 0, stored: false, storageRef: null, metadata: { topic: "/camera" } });
    expect(item.manifest).toEqual(chunk!.manifest);
    const events = await prismaOf(p).marketAuditEvent.findMany({ where: { id: { gt: BigInt(0) } }, orderBy: { id: "desc" }, take: 1 });
    expect(events[0]).toMatchObject({ kind: "stream.chunk.registered", machineId: seller.machineId, actorType: "machine-agent", actorId: seller.agentId });
    expect(await prismaOf(p).marketAuditEvent.count()).toBe(before + 1);
    expect(expectOk(await postChunk(p, seller, chunk!.manifest, { topic: "/camera" }), 200).item).toEqual(item);
  });

  it("takes the credentials in headers too", async () => {
    const [chunk] = buildChunks(seller, 1);
    const answer = await api(p, "POST", "/stream/chunks", { machineId: seller.machineId, manifest: chunk!.manifest }, sellerHeaders(seller));
    expect(expectOk(answer, 201).item.chunkId).toBe(chunk!.manifest.chunkId);
  });

  const tampered: Array<[string, (c: EncryptedChunk, s: StreamSeller) => unknown, number, string]> = [
    ["a changed plaintextHash (chunkId no longer matches)", (c) => ({ ...c.manifest, plaintextHash: `sha256:${"1".repeat(64)}` }), 400, "CHUNK_ID_MISMATCH"],
    ["a signature value flipped", (c) => ({ ...c.manifest, signature: { ...c.manifest.signature, value: c.manifest.signature.value.replace(/^./, (x) => (x === "0" ? "1" : "0")) } }), 400, "SIGNATURE_INVALID"],
    ["a key the machine did not register", (c, s) => signManifest(c.manifest, signingKey(s.identityRef, "unregistered").signer), 400, "SIGNER_UNKNOWN"],
    ["another machine's DID as signer", (c, s) => signManifest(c.manifest, { ...s.signer, machineDid: other.identityRef }), 400, "SIGNER_UNKNOWN"],
    ["a missing member", (c) => { const { encryptedSize: _, ...rest } = c.manifest; return rest; }, 400, "MANIFEST_MALFORMED"],
    ["an extra member", (c) => ({ ...c.manifest, extra: 1 }), 400, "MANIFEST_MALFORMED"],
  ];
  it.each(tampered)("%s: refused with its code, nothing written", async (_name, tamper, status, code) => {
    const [chunk] = buildChunks(seller, 1);
    const before = await state();
    expectMarketsError(await postChunk(p, seller, tamper(chunk!, seller)), status, code);
    expect(await state()).toEqual(before);
  });

  it("CHAIN_BROKEN: index > 0 whose previous chunk is not registered, or belongs to another machine", async () => {
    const [first, second] = buildChunks(seller, 2);
    const before = await state();
    expectMarketsError(await postChunk(p, seller, second!.manifest), 400, "CHAIN_BROKEN");
    expect(await state()).toEqual(before);
    const [foreign] = buildChunks(other, 1);
    expectOk(await postChunk(p, other, foreign!.manifest), 201);
    const [linked] = buildChunks(seller, 1, 64, foreign!.manifest);
    expectMarketsError(await postChunk(p, seller, linked!.manifest), 400, "CHAIN_BROKEN");
    expectOk(await postChunk(p, seller, first!.manifest), 201);
    expectOk(await postChunk(p, seller, second!.manifest), 201);
  });

  it("a manifest that is not an object: 400 VALIDATION_ERROR", async () => {
    expectMarketsError(await api(p, "POST", "/stream/chunks", { machineId: seller.machineId, agentId: seller.agentId, agentToken: seller.agentToken, manifest: "x" }), 400, "VALIDATION_ERROR");
  });

  it("credentials: none 401 AGENT_AUTH_REQUIRED, wrong token or another machine's agent 401 AGENT_AUTH_INVALID, revoked 409 AGENT_PAIRING_INACTIVE", async () => {
    const [chunk] = buildChunks(seller, 1);
    const before = await state();
    expectMarketsError(await api(p, "POST", "/stream/chunks", { machineId: seller.machineId, manifest: chunk!.manifest }), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await postChunk(p, { ...seller, agentToken: `mat_${"A".repeat(43)}` }, chunk!.manifest), 401, "AGENT_AUTH_INVALID");
    expectMarketsError(await postChunk(p, { ...seller, agentId: other.agentId, agentToken: other.agentToken }, chunk!.manifest), 401, "AGENT_AUTH_INVALID");
    const revoked = await enrollAgent(p, seller.machineId);
    expectOk(await api(p, "POST", `/machines/${seller.machineId}/agents/${revoked.agentId}/revoke`));
    const afterRevoke = await state();
    expectMarketsError(await postChunk(p, { ...seller, ...revoked }, chunk!.manifest), 409, "AGENT_PAIRING_INACTIVE");
    expect(await state()).toEqual(afterRevoke);
    expect(afterRevoke.chunks).toEqual(before.chunks);
  });
});

describe("PUT /stream/chunks/:chunkId/data", () => {
  it("200 stores the exact ciphertext in the local driver; the chunk is stored with its audit event", async () => {
    const [chunk] = buildChunks(seller, 1, 1000);
    expectOk(await postChunk(p, seller, chunk!.manifest), 201);
    const answer = await putChunkData(p, seller, chunk!.manifest.chunkId, chunk!.ciphertext);
    expect(answer.status).toBe(200);
    expect(answer.json.item).toMatchObject({ chunkId: chunk!.manifest.chunkId, stored: true });
    expect(answer.json.item.storageRef).toMatch(new RegExp(`^local:chunks/${seller.machineId}/[0-9a-f]{64}/[0-9a-f]{24}$`));
    const read = await marketsServices(p).streamStorage.get(answer.json.item.storageRef);
    const parts: Buffer[] = [];
    for await (const part of read.body) parts.push(part as Buffer);
    expect(Buffer.concat(parts).equals(Buffer.from(chunk!.ciphertext))).toBe(true);
    const event = await prismaOf(p).marketAuditEvent.findFirst({ where: { kind: "stream.chunk.stored" }, orderBy: { id: "desc" } });
    expect(event?.data).toMatchObject({ chunkId: chunk!.manifest.chunkId, encryptedSize: chunk!.ciphertext.length });
    // Again: answers the stored chunk, keeps one object.
    const files = await listFiles(path.join(p.dataDir, "stream-chunks"));
    const again = await putChunkData(p, seller, chunk!.manifest.chunkId, chunk!.ciphertext);
    expect([again.status, again.json.item.storageRef]).toEqual([200, answer.json.item.storageRef]);
    expect(await listFiles(path.join(p.dataDir, "stream-chunks"))).toEqual(files);
  });

  it.each([
    ["one byte flipped", (c: Uint8Array) => Uint8Array.from(c, (b, i) => (i === 5 ? b ^ 1 : b)), "CIPHERTEXT_HASH_MISMATCH"],
    ["one byte short", (c: Uint8Array) => c.subarray(1), "CIPHERTEXT_SIZE_MISMATCH"],
    ["one byte more", (c: Uint8Array) => Buffer.concat([c, Buffer.from([0])]), "CIPHERTEXT_SIZE_MISMATCH"],
  ])("%s: 400 with its code, nothing stored", async (_name, tamper, code) => {
    const [chunk] = buildChunks(seller, 1, 300);
    expectOk(await postChunk(p, seller, chunk!.manifest), 201);
    const before = await state();
    const answer = await putChunkData(p, seller, chunk!.manifest.chunkId, tamper(chunk!.ciphertext));
    expect([answer.status, answer.json.error.code]).toEqual([400, code]);
    expect(await state()).toEqual(before);
  });

  it("refuses without credentials (401), another machine's agent (401), an unknown chunk (404), a JSON body (400)", async () => {
    const [chunk] = buildChunks(seller, 1);
    expectOk(await postChunk(p, seller, chunk!.manifest), 201);
    const before = await state();
    const none = await fetch(`${p.markets}/api/v1/stream/chunks/${encodeURIComponent(chunk!.manifest.chunkId)}/data`, {
      method: "PUT", headers: { "content-type": "application/octet-stream" }, body: Buffer.from(chunk!.ciphertext),
    });
    expect([none.status, ((await none.json()) as any).error.code]).toEqual([401, "AGENT_AUTH_REQUIRED"]);
    const foreign = await putChunkData(p, other, chunk!.manifest.chunkId, chunk!.ciphertext);
    expect([foreign.status, foreign.json.error.code]).toEqual([401, "AGENT_AUTH_INVALID"]);
    const unknown = await putChunkData(p, seller, `sha256:${"e".repeat(64)}`, chunk!.ciphertext);
    expect([unknown.status, unknown.json.error.code]).toEqual([404, "NOT_FOUND"]);
    const typed = await putChunkData(p, seller, chunk!.manifest.chunkId, chunk!.ciphertext, { "content-type": "application/json" });
    expect([typed.status, typed.json.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(await state()).toEqual(before);
  });
});

describe("PUT /stream/chunks/:chunkId/data: limits before the body", () => {
  it("a declared body over the limit: 413 PAYLOAD_TOO_LARGE before a byte is read, connection closed", async () => {
    const [chunk] = buildChunks(seller, 1);
    expectOk(await postChunk(p, seller, chunk!.manifest), 201);
    const before = await state();
    const port = Number(new URL(p.markets).port);
    const answer = await rawRequest(port, [
      `PUT /api/v1/stream/chunks/${encodeURIComponent(chunk!.manifest.chunkId)}/data HTTP/1.1`, "Host: 127.0.0.1",
      "Content-Type: application/octet-stream", `Content-Length: ${MAX_CHUNK_SIZE + 1}`,
      `x-machine-agent-id: ${seller.agentId}`, `x-machine-agent-token: ${seller.agentToken}`,
    ]);
    expect([answer.status, JSON.parse(answer.body).error.code, answer.headers.connection]).toEqual([413, "PAYLOAD_TOO_LARGE", "close"]);
    expect(await state()).toEqual(before);
  });

  it("a declared length other than encryptedSize: 400 CIPHERTEXT_SIZE_MISMATCH; a repeated credential header: 401 AGENT_AUTH_INVALID", async () => {
    const [chunk] = buildChunks(seller, 1, 100);
    expectOk(await postChunk(p, seller, chunk!.manifest), 201);
    const before = await state();
    const port = Number(new URL(p.markets).port);
    const path = `/api/v1/stream/chunks/${encodeURIComponent(chunk!.manifest.chunkId)}/data`;
    const head = (extra: string[]) => [`PUT ${path} HTTP/1.1`, "Host: 127.0.0.1", "Content-Type: application/octet-stream", ...extra];
    const wrongLength = await rawRequest(port, head([`Content-Length: 10`, `x-machine-agent-id: ${seller.agentId}`, `x-machine-agent-token: ${seller.agentToken}`]), [Buffer.alloc(10)]);
    expect([wrongLength.status, JSON.parse(wrongLength.body).error.code]).toEqual([400, "CIPHERTEXT_SIZE_MISMATCH"]);
    const repeated = await rawRequest(port, head([`Content-Length: 0`, `x-machine-agent-id: ${seller.agentId}`, `x-machine-agent-id: ${seller.agentId}`, `x-machine-agent-token: ${seller.agentToken}`]));
    expect([repeated.status, JSON.parse(repeated.body).error.code]).toEqual([401, "AGENT_AUTH_INVALID"]);
    expect(await state()).toEqual(before);
  });
});

describe("GET /stream/chunks/:chunkId/data", () => {
  let chunk: EncryptedChunk;
  let token: string;
  beforeAll(async () => {
    [chunk] = buildChunks(seller, 1, 1000) as [EncryptedChunk];
    expectOk(await postChunk(p, seller, chunk.manifest), 201);
    expect((await putChunkData(p, seller, chunk.manifest.chunkId, chunk.ciphertext)).status).toBe(200);
    token = await tokenFor([chunk.manifest.chunkId]);
  });

  it("200 the whole ciphertext with Accept-Ranges and the chunk headers", async () => {
    const answer = await download(chunk.manifest.chunkId, bearer(token));
    expect(answer.status).toBe(200);
    expect(answer.body.equals(Buffer.from(chunk.ciphertext))).toBe(true);
    expect(answer.headers.get("accept-ranges")).toBe("bytes");
    expect(answer.headers.get("content-type")).toBe("application/octet-stream");
    expect(answer.headers.get("content-length")).toBe(String(chunk.ciphertext.length));
    expect(answer.headers.get("x-stream-chunk-id")).toBe(chunk.manifest.chunkId);
    expect(answer.headers.get("x-stream-encrypted-data-hash")).toBe(chunk.manifest.encryptedDataHash);
  });

  it("HEAD answers the headers of the GET without a body", async () => {
    const response = await fetch(`${p.markets}/api/v1/stream/chunks/${encodeURIComponent(chunk.manifest.chunkId)}/data`, { method: "HEAD", headers: bearer(token) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(chunk.ciphertext.length));
    expect(response.headers.get("x-stream-chunk-id")).toBe(chunk.manifest.chunkId);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it.each([
    ["bytes=0-9", 0, 9],
    ["bytes=10-", 10, 1015],
    ["bytes=-16", 1000, 1015],
    ["bytes=1010-5000", 1010, 1015],
    ["bytes=1015-1015", 1015, 1015],
  ])("Range %s: 206 with Content-Range", async (range, start, end) => {
    const size = chunk.ciphertext.length;
    expect(size).toBe(1016);
    const answer = await download(chunk.manifest.chunkId, { ...bearer(token), range });
    expect(answer.status).toBe(206);
    expect(answer.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
    expect(answer.body.equals(Buffer.from(chunk.ciphertext.subarray(start, end + 1)))).toBe(true);
    expect(answer.headers.get("x-stream-chunk-id")).toBe(chunk.manifest.chunkId);
  });

  it.each(["bytes=1016-", "bytes=5000-6000", "bytes=-0"])("Range %s: 416 with Content-Range bytes */size", async (range) => {
    const answer = await download(chunk.manifest.chunkId, { ...bearer(token), range });
    expect([answer.status, answer.json().error.code]).toEqual([416, "RANGE_NOT_SATISFIABLE"]);
    expect(answer.headers.get("content-range")).toBe(`bytes */${chunk.ciphertext.length}`);
  });

  it.each(["bytes=5-2", "items=0-1", "bytes=0-1,4-5", "bytes=x-"])("Range %s (malformed or multi-range) is ignored: 200", async (range) => {
    const answer = await download(chunk.manifest.chunkId, { ...bearer(token), range });
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(chunk.ciphertext.length);
  });

  it("token: none 401 DELIVERY_TOKEN_REQUIRED, garbage or another scheme 401 DELIVERY_TOKEN_INVALID", async () => {
    expect((await download(chunk.manifest.chunkId)).json().error.code).toBe("DELIVERY_TOKEN_REQUIRED");
    const garbage = await download(chunk.manifest.chunkId, bearer("not.a.token"));
    expect([garbage.status, garbage.json().error.code]).toEqual([401, "DELIVERY_TOKEN_INVALID"]);
    const basic = await download(chunk.manifest.chunkId, { authorization: `Basic ${token}` });
    expect([basic.status, basic.json().error.code]).toEqual([401, "DELIVERY_TOKEN_INVALID"]);
  });

  it("a token for another chunk: 403 DELIVERY_TOKEN_SCOPE; an expired one: 401 DELIVERY_TOKEN_EXPIRED", async () => {
    const otherToken = await tokenFor([`sha256:${"f".repeat(64)}`]);
    const scoped = await download(chunk.manifest.chunkId, bearer(otherToken));
    expect([scoped.status, scoped.json().error.code]).toEqual([403, "DELIVERY_TOKEN_SCOPE"]);
    const old = await tokenFor([chunk.manifest.chunkId], Date.now() - 3_600_000);
    const expired = await download(chunk.manifest.chunkId, bearer(old));
    expect([expired.status, expired.json().error.code]).toEqual([401, "DELIVERY_TOKEN_EXPIRED"]);
  });

  it("a registered chunk not stored yet: 409 CHUNK_NOT_STORED; unknown: 404", async () => {
    const [pending] = buildChunks(seller, 1);
    expectOk(await postChunk(p, seller, pending!.manifest), 201);
    const answer = await download(pending!.manifest.chunkId, bearer(await tokenFor([pending!.manifest.chunkId])));
    expect([answer.status, answer.json().error.code]).toEqual([409, "CHUNK_NOT_STORED"]);
    const unknown = `sha256:${"d".repeat(64)}`;
    expect((await download(unknown, bearer(await tokenFor([unknown])))).status).toBe(404);
  });
});

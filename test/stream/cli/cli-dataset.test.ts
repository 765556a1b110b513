/**
 * The CLI's dataset layout (clients/typescript/src/stream/dataset.ts): an index chunk, then each file's chunks, in one
 * chain; rebuilt into the same files from the chain alone; an index naming a path outside the output directory, or
 * chunk counts that do not add up, is refused.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StepError } from "../../../clients/typescript/src/errors.js";
import { DatasetWriter, datasetIndex, encryptDataset, parseIndex } from "../../../clients/typescript/src/stream/dataset.js";
import { decryptChunk, unwrapChunkKey, verifyChain, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import { streamParties } from "../fixtures.js";

const parties = streamParties();
let root: string;
const files: Record<string, Buffer> = { "b/two.bin": Buffer.alloc(2500, 7), "a.txt": Buffer.from("hello"), "empty": Buffer.alloc(0) };

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "dataset-"));
  for (const [name, bytes] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, "in", name)), { recursive: true });
    await writeFile(path.join(root, "in", name), bytes);
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof StepError ? error.message : `not a StepError: ${String(error)}`;
  }
  return "no refusal";
}

describe("dataset layout", () => {
  it("indexes files sorted by path with their chunk counts", async () => {
    const index = await datasetIndex(path.join(root, "in"), 1024);
    expect(index.files).toEqual([
      { path: "a.txt", bytes: 5, chunks: 1 },
      { path: "b/two.bin", bytes: 2500, chunks: 3 },
      { path: "empty", bytes: 0, chunks: 0 },
    ]);
  });

  it("encrypts index then files into one chain (after a previous chunk) and rebuilds the same files", async () => {
    const index = await datasetIndex(path.join(root, "in"), 1024);
    const previous = { chunkId: `sha256:${"ab".repeat(32)}`, index: 41 };
    const chunks = [];
    for await (const c of encryptDataset(path.join(root, "in"), index, { signer: parties.signer, recipients: parties.recipients }, previous)) chunks.push(c);
    expect(chunks.map((c) => c.file)).toEqual([null, "a.txt", "b/two.bin", "b/two.bin", "b/two.bin"]);
    expect(chunks[0].manifest).toMatchObject({ index: 42, previousChunkId: previous.chunkId });
    const manifests: ChunkManifest[] = verifyChain(chunks.map((c) => c.manifest), parties.trusted);
    const plain = chunks.map((c, i) => decryptChunk(manifests[i], c.ciphertext, unwrapChunkKey(manifests[i], parties.machineBox.secretKey)));
    const parsed = parseIndex(plain[0], manifests);
    const out = path.join(root, "out");
    const writer = new DatasetWriter(out, parsed);
    await writer.open();
    for (const p of plain.slice(1)) await writer.write(p);
    await writer.close();
    for (const [name, bytes] of Object.entries(files)) expect((await readFile(path.join(out, name))).equals(bytes), name).toBe(true);
  });

  it("refuses an index with a path leaving the output directory, or chunk counts that do not add up", () => {
    const manifests = [{}, {}] as ChunkManifest[];
    const index = (files: unknown) => new TextEncoder().encode(JSON.stringify({ schemaVersion: "peaq.stream.dataset-index.v1", chunkSize: 1024, files }));
    for (const bad of ["../evil", "/etc/passwd", "a/../../b", "a\\b", ""]) {
      expect(refusal(() => parseIndex(index([{ path: bad, bytes: 1, chunks: 1 }]), manifests))).toMatch(/not a peaq.stream.dataset-index.v1 index/);
    }
    expect(refusal(() => parseIndex(index([{ path: "ok", bytes: 1, chunks: 2 }]), manifests))).toMatch(/names 2 file chunks; 1 were bought/);
    expect(refusal(() => parseIndex(new TextEncoder().encode("{"), manifests))).toMatch(/not JSON/);
    expect(parseIndex(index([{ path: "ok/x", bytes: 1, chunks: 1 }]), manifests).files[0].path).toBe("ok/x");
  });

  it("refuses a directory that does not exist or holds no file", async () => {
    await mkdir(path.join(root, "none"), { recursive: true });
    await expect(datasetIndex(path.join(root, "nope"), 1024)).rejects.toThrow(/is not a directory/);
    await expect(datasetIndex(path.join(root, "none"), 1024)).rejects.toThrow(/has no files/);
  });
});

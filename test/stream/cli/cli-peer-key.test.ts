/**
 * The seller's libp2p peer key persists across `cli stream serve` runs: the first serve creates the key file (mode
 * 0600) under the data directory, a second serve answers and announces the same peer ID; `--peer-key` names another
 * file; a key file others may read, or one that holds no key, is refused before anything is served or announced.
 */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform, type StreamSeller } from "../helpers.js";
import { startServe, writeSellerFile } from "./cli-helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let work: string;
let sellerFile: string;
beforeAll(async () => {
  p = await startMarketsPlatform();
  seller = await createSeller(p, 0);
  work = await mkdtemp(path.join(os.tmpdir(), "stream-peer-key-"));
  sellerFile = path.join(work, "seller.json");
  await writeSellerFile(sellerFile, seller);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** One serve run: its announced peer ID (the `serve` line), then stopped. */
async function servePeerId(extra: string[] = []): Promise<{ peerId: string; libp2p: string[] }> {
  const serve = startServe(p, sellerFile, extra);
  try {
    const line = await serve.line((l) => l.step === "serve");
    return { peerId: line.peerId, libp2p: line.libp2p };
  } finally {
    await serve.stop();
  }
}

/** The peer ID the seller's stored libp2p capability announces. */
const announcedPeerId = async () => {
  const row = await prismaOf(p).streamDeliveryCapability.findUnique({ where: { machineId: seller.machineId } });
  const libp2p = ((row?.capabilities ?? []) as Array<{ transportId: string; params?: { peerId?: string } }>).find((c) => c.transportId === "libp2p");
  return libp2p?.params?.peerId ?? null;
};

describe("the seller's libp2p peer key", () => {
  it("the first serve creates <DATA_DIR>/stream-seller-peer.key (0600); the next serve answers and announces the same peer ID", async () => {
    const file = path.join(p.dataDir, "stream-seller-peer.key");
    await rm(file, { force: true });
    const first = await servePeerId();
    expect(first.peerId).toMatch(/^12D3KooW[1-9A-HJ-NP-Za-km-z]+$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const bytes = await readFile(file);
    const second = await servePeerId();
    expect(second.peerId).toBe(first.peerId);
    for (const address of second.libp2p) expect(address.endsWith(`/p2p/${first.peerId}`)).toBe(true);
    expect(await announcedPeerId()).toBe(first.peerId);
    expect(await readFile(file)).toEqual(bytes);
  });

  it("--peer-key names another file: another peer ID, stable across its own serves", async () => {
    const file = path.join(work, "other.key");
    const first = await servePeerId(["--peer-key", file]);
    const second = await servePeerId(["--peer-key", file]);
    expect(second.peerId).toBe(first.peerId);
    expect(first.peerId).not.toBe((await servePeerId()).peerId);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("a key file readable by others, or one holding no key, is refused: the serve exits and announces nothing new", async () => {
    const open = path.join(work, "open.key");
    await servePeerId(["--peer-key", open]);
    const announced = await announcedPeerId();
    await chmod(open, 0o640);
    await expect(servePeerId(["--peer-key", open])).rejects.toThrow(/readable by its owner only/);
    const junk = path.join(work, "junk.key");
    await writeFile(junk, "not a key", { mode: 0o600 });
    await expect(servePeerId(["--peer-key", junk])).rejects.toThrow(/not a libp2p private key/);
    expect(await announcedPeerId()).toBe(announced);
    expect(await readFile(junk, "utf8")).toBe("not a key");
  });
});

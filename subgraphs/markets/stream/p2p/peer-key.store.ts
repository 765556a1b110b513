/**
 * The seller's libp2p peer key, kept in a file so that its peer ID stays the same across `stream serve` runs and
 * buyers can pin it. The file holds the Ed25519 private key in libp2p's protobuf encoding. The first serve creates it
 * with mode 0600 (written to a private temporary file, then linked into place, so two serves starting together agree on
 * one key and neither reads a half-written file); later serves read it. A key file that others may read (any group or
 * other permission bit) or that is not an Ed25519 key is refused: the peer ID would no longer prove the seller.
 */
import { randomBytes } from "node:crypto";
import { link, open, readFile, stat, unlink } from "node:fs/promises";
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from "@libp2p/crypto/keys";
import type { Libp2pInit } from "libp2p";

/**
 * The private key a libp2p node takes (`createLibp2p({ privateKey })`). libp2p creates its own keys with this same
 * @libp2p/crypto module; only the declared types differ (two @libp2p/interface versions in the tree), hence the casts.
 */
export type PeerKey = NonNullable<Libp2pInit["privateKey"]>;

export class PeerKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PeerKeyError";
  }
}

/** Creates the key file when it does not exist (mode 0600) and answers the key it holds. */
export async function loadOrCreatePeerKey(file: string): Promise<PeerKey> {
  const existing = await readPeerKey(file);
  if (existing) return existing;
  const key = await generateKeyPair("Ed25519");
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(privateKeyToProtobuf(key));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await unlink(temporary).catch(() => {});
  }
  // Whoever linked first wins; every serve answers the key in the file.
  const stored = await readPeerKey(file);
  if (!stored) throw new PeerKeyError(`${file}: the peer key file disappeared while it was created`);
  return stored;
}

/** The key in `file`, or null when there is no such file. */
async function readPeerKey(file: string): Promise<PeerKey | null> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  if ((mode & 0o077) !== 0) throw new PeerKeyError(`${file}: the peer key file must be readable by its owner only (chmod 600)`);
  let key: ReturnType<typeof privateKeyFromProtobuf>;
  try {
    key = privateKeyFromProtobuf(await readFile(file));
  } catch {
    throw new PeerKeyError(`${file}: not a libp2p private key`);
  }
  if (key.type !== "Ed25519") throw new PeerKeyError(`${file}: the peer key must be Ed25519, not ${key.type}`);
  return key as unknown as PeerKey;
}

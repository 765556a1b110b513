/** Keys and helpers shared by the stream format tests (test/stream/*). */
import nacl from "tweetnacl";
import { toHex, type ChunkRecipient, type ManifestSigner, type TrustedSigningKey } from "../../subgraphs/markets/stream/index.js";

export const MACHINE_DID = "did:peaq:0xmachine-7";

export function streamParties() {
  const signing = nacl.sign.keyPair();
  const machineBox = nacl.box.keyPair();
  const ownerBox = nacl.box.keyPair();
  const buyerBox = nacl.box.keyPair();
  const otherBuyerBox = nacl.box.keyPair();
  const signer: ManifestSigner = { machineDid: MACHINE_DID, keyId: "machine-key-1", secretKey: signing.secretKey };
  const trusted: TrustedSigningKey[] = [{ machineDid: MACHINE_DID, keyId: "machine-key-1", publicKeyHex: toHex(signing.publicKey) }];
  const recipients: ChunkRecipient[] = [
    { recipientId: "machine-7", recipientType: "machine", publicKey: machineBox.publicKey },
    { recipientId: "owner-1", recipientType: "owner", publicKey: ownerBox.publicKey },
  ];
  return { signing, machineBox, ownerBox, buyerBox, otherBuyerBox, signer, trusted, recipients };
}

/** `count` bytes of a repeatable pattern, produced in parts of `part` bytes (a stream that never exists whole). */
export async function* patternStream(count: number, part = 65_536): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < count; offset += part) {
    const bytes = new Uint8Array(Math.min(part, count - offset));
    for (let i = 0; i < bytes.length; i++) bytes[i] = (offset + i) * 31 % 251;
    yield bytes;
  }
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Byte equality as one boolean: vitest's deep equality walks large arrays element by element. */
export const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/**
 * A decoder for exactly one ABI shape: the `MachineEvent[]` that `EventRegistry.getEvents` returns. ethers' general
 * decoder spends ~140 ms on a page of 100 events; reading the known layout from a Buffer takes well under 1 ms, which
 * is what lets a machine with 10,000 events be scored cold in a fraction of a second. Every offset and length is
 * bounds-checked; anything that does not fit the layout throws (the reader reports it as a bad chain answer).
 * test/ratings/event-decoder.test.ts checks it against ethers on encoded data.
 *
 *   head:   offset of the array (0x20)
 *   array:  length N, then N offsets (relative to the first of them) of the N tuples
 *   tuple:  12 words: machineId, eventType, value, currency*, timestamp, dataHash, trustLevel, sourceChainId,
 *           sourceTxHash, metadata*, submitter, recordedAt (* offsets, relative to the tuple, of length-prefixed data)
 */
import type { EventRecord } from "./ratings-chain.js";

const WORD = 32;
const TUPLE_WORDS = 12;

export type DecodedEvent = Omit<EventRecord, "index">;

class Reader {
  constructor(private readonly buf: Buffer) {}

  private check(offset: number, length: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + length > this.buf.length) throw new Error("ABI data out of bounds");
  }

  /** A word that must fit a safe integer (offsets, lengths, small uints, timestamps). */
  small(offset: number): number {
    this.check(offset, WORD);
    for (let i = offset; i < offset + 24; i++) if (this.buf[i] !== 0) throw new Error("ABI word too large");
    const value = this.buf.readBigUInt64BE(offset + 24);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("ABI word too large");
    return Number(value);
  }

  big(offset: number): bigint {
    this.check(offset, WORD);
    const b = this.buf;
    return (
      (b.readBigUInt64BE(offset) << 192n) |
      (b.readBigUInt64BE(offset + 8) << 128n) |
      (b.readBigUInt64BE(offset + 16) << 64n) |
      b.readBigUInt64BE(offset + 24)
    );
  }

  hex(offset: number, length: number): string {
    this.check(offset, length);
    return `0x${this.buf.toString("hex", offset, offset + length)}`;
  }

  /** `bytes` / `string` at `offset`: a length word, then the data. */
  dynamic(offset: number): [start: number, length: number] {
    const length = this.small(offset);
    this.check(offset + WORD, length);
    return [offset + WORD, length];
  }

  utf8(start: number, length: number): string {
    return this.buf.toString("utf8", start, start + length);
  }
}

export function decodeMachineEvents(returnData: string): DecodedEvent[] {
  const bytes = Buffer.from(returnData.slice(2), "hex");
  // Buffer.from stops at the first character that is not hex: a short result means the answer was not hex.
  if (!returnData.startsWith("0x") || bytes.length * 2 !== returnData.length - 2) throw new Error("return data is not hex");
  const read = new Reader(bytes);
  const array = read.small(0);
  const count = read.small(array);
  const heads = array + WORD;
  const events: DecodedEvent[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const tuple = heads + read.small(heads + i * WORD);
    const at = (word: number) => tuple + word * WORD;
    read.small(at(TUPLE_WORDS - 1)); // the tuple's head is in bounds
    const [currencyStart, currencyLength] = read.dynamic(tuple + read.small(at(3)));
    const [metadataStart, metadataLength] = read.dynamic(tuple + read.small(at(9)));
    events[i] = {
      eventType: read.small(at(1)),
      value: read.big(at(2)),
      currency: read.utf8(currencyStart, currencyLength),
      timestamp: read.small(at(4)),
      dataHash: read.hex(at(5), WORD),
      trustLevel: read.small(at(6)),
      sourceChainId: read.big(at(7)),
      sourceTxHash: read.hex(at(8), WORD),
      metadata: read.hex(metadataStart, metadataLength),
      submitter: read.hex(at(10) + 12, 20),
      recordedAt: read.small(at(11)),
    };
  }
  return events;
}

/**
 * A decoder for exactly one ABI shape: the `MachineEvent[]` that `EventRegistry.getEvents` returns. ethers' general
 * decoder spends ~140 ms on a page of 100 events; reading the known layout from a Buffer takes well under 1 ms, which
 * is what lets a machine with 10,000 events be scored cold in a fraction of a second. Every offset and length is
 * bounds-checked; anything that does not fit the layout throws (the reader reports it as a bad chain answer).
 * test/ratings/event-decoder.test.ts checks it against ethers on encoded data, test/ratings/event-pages.test.ts on
 * pages anvil answered.
 *
 *   head:   offset of the array (0x20)
 *   array:  length N, then N offsets (relative to the first of them) of the N tuples
 *   tuple:  12 words: machineId, eventType, value, currency*, timestamp, dataHash, trustLevel, sourceChainId,
 *           sourceTxHash, metadata*, submitter, recordedAt (* offsets, relative to the tuple, of length-prefixed data)
 */
import type { EventRecord } from "./ratings-chain.js";

const WORD = 32;
const TUPLE_WORDS = 12;
/** 2^32, to join two 32-bit halves of a word. */
const HIGH = 0x1_0000_0000;
/** The high half of a word's last 8 bytes must stay below this for the word to be a safe integer (2^53). */
const SAFE_HIGH = 0x20_0000;

/**
 * Words are read as 32-bit big-endian halves through a DataView (no BigInt per word: a number word is checked and
 * joined as two uint32s), and uint256 values that fit a safe integer become a bigint from that number.
 */
class Reader {
  private readonly view: DataView;

  constructor(
    private readonly buf: Buffer,
    private readonly hexText: string,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  }

  private check(offset: number, length: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + length > this.buf.length) throw new Error("ABI data out of bounds");
  }

  /** Whether the word's first 24 bytes are zero and its last 8 hold a safe integer (the caller checked bounds). */
  private fitsNumber(offset: number): boolean {
    const v = this.view;
    return (
      (v.getUint32(offset) | v.getUint32(offset + 4) | v.getUint32(offset + 8) | v.getUint32(offset + 12) |
        v.getUint32(offset + 16) | v.getUint32(offset + 20)) === 0 && v.getUint32(offset + 24) < SAFE_HIGH
    );
  }

  private number(offset: number): number {
    return this.view.getUint32(offset + 24) * HIGH + this.view.getUint32(offset + 28);
  }

  /** A word that must fit a safe integer (offsets, lengths, small uints, timestamps). */
  small(offset: number): number {
    this.check(offset, WORD);
    if (!this.fitsNumber(offset)) throw new Error("ABI word too large");
    return this.number(offset);
  }

  big(offset: number): bigint {
    this.check(offset, WORD);
    if (this.fitsNumber(offset)) return BigInt(this.number(offset));
    const at = 2 + offset * 2;
    return BigInt(`0x${this.hexText.slice(at, at + WORD * 2)}`);
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

  /** UTF-8 text; short ASCII (currency codes) is built here, which is the same string without a native call. */
  utf8(start: number, length: number): string {
    const b = this.buf;
    if (length <= 16) {
      let text = "";
      for (let i = start; i < start + length; i++) {
        const byte = b[i]!;
        if (byte >= 0x80) return b.toString("utf8", start, start + length);
        text += String.fromCharCode(byte);
      }
      return text;
    }
    return b.toString("utf8", start, start + length);
  }
}

/** The events of one page, numbered from `firstIndex` (the page's offset in the machine's history). */
export function decodeMachineEvents(returnData: string, firstIndex = 0): EventRecord[] {
  const bytes = Buffer.from(returnData.slice(2), "hex");
  // Buffer.from stops at the first character that is not hex: a short result means the answer was not hex.
  if (!returnData.startsWith("0x") || bytes.length * 2 !== returnData.length - 2) throw new Error("return data is not hex");
  const read = new Reader(bytes, returnData);
  const array = read.small(0);
  const count = read.small(array);
  const heads = array + WORD;
  const events: EventRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const tuple = heads + read.small(heads + i * WORD);
    read.small(tuple + (TUPLE_WORDS - 1) * WORD); // the tuple's head is in bounds
    const [currencyStart, currencyLength] = read.dynamic(tuple + read.small(tuple + 3 * WORD));
    const [metadataStart, metadataLength] = read.dynamic(tuple + read.small(tuple + 9 * WORD));
    events[i] = {
      index: firstIndex + i,
      eventType: read.small(tuple + WORD),
      value: read.big(tuple + 2 * WORD),
      currency: read.utf8(currencyStart, currencyLength),
      timestamp: read.small(tuple + 4 * WORD),
      dataHash: read.hex(tuple + 5 * WORD, WORD),
      trustLevel: read.small(tuple + 6 * WORD),
      sourceChainId: read.big(tuple + 7 * WORD),
      sourceTxHash: read.hex(tuple + 8 * WORD, WORD),
      metadata: read.hex(metadataStart, metadataLength),
      submitter: read.hex(tuple + 10 * WORD + 12, 20),
      recordedAt: read.small(tuple + 11 * WORD),
    };
  }
  return events;
}

/**
 * The `getEvents` decoder against ethers' ABI encoder: random pages decode to the same values, and malformed return
 * data (truncated, not hex, offsets out of bounds, oversized words) is refused rather than misread.
 */
import { randomBytes } from "node:crypto";
import { hexlify } from "ethers";
import { describe, expect, it } from "vitest";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { decodeMachineEvents } from "../../subgraphs/ratings/chain/event-decoder.js";

const events = contractInterface("EventRegistry");
const word = () => BigInt(hexlify(randomBytes(32)));

function randomEvent(i: number) {
  return {
    machineId: word(),
    eventType: i % 2,
    value: word(),
    currency: ["USD", "EUR", "", "USDC", "Ünicode€"][i % 5]!,
    timestamp: BigInt(1_700_000_000 + i),
    dataHash: hexlify(randomBytes(32)),
    trustLevel: i % 3,
    sourceChainId: word(),
    sourceTxHash: hexlify(randomBytes(32)),
    metadata: hexlify(randomBytes(i % 70)),
    submitter: hexlify(randomBytes(20)),
    recordedAt: BigInt(1_800_000_000 + i),
  };
}

const encode = (page: ReturnType<typeof randomEvent>[]) => events.encodeFunctionResult("getEvents", [page]);

describe("decodeMachineEvents", () => {
  it.each([0, 1, 7, 100])("a page of %i events decodes as ethers encodes it", (count) => {
    const page = Array.from({ length: count }, (_, i) => randomEvent(i));
    expect(decodeMachineEvents(encode(page))).toEqual(
      page.map((e, i) => ({
        index: i,
        eventType: e.eventType,
        value: e.value,
        currency: e.currency,
        timestamp: Number(e.timestamp),
        dataHash: e.dataHash,
        trustLevel: e.trustLevel,
        sourceChainId: e.sourceChainId,
        sourceTxHash: e.sourceTxHash,
        metadata: e.metadata,
        submitter: e.submitter.toLowerCase(),
        recordedAt: Number(e.recordedAt),
      })),
    );
  });

  it("decodes edge values as ethers encodes them: zero, 2^53 - 1 and above, max uint256, long and non-ASCII text", () => {
    const max = (1n << 256n) - 1n;
    const page = [0n, (1n << 53n) - 1n, 1n << 53n, (1n << 64n) - 1n, 1n << 64n, 1n << 128n, max].map((value, i) => ({
      ...randomEvent(i),
      value,
      sourceChainId: max - value,
      timestamp: i === 1 ? (1n << 53n) - 1n : 0n,
      recordedAt: 0n,
      currency: ["", "A".repeat(16), "B".repeat(17), "Ü", "€".repeat(40), "ABCDEFGHIJ", "USD"][i]!,
      dataHash: i % 2 ? `0x${"ff".repeat(32)}` : `0x${"00".repeat(32)}`,
      metadata: i === 6 ? hexlify(randomBytes(1000)) : "0x",
      submitter: i % 2 ? "0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF" : "0x0000000000000000000000000000000000000000",
    }));
    const decoded = decodeMachineEvents(encode(page), 500);
    const ethersDecoded = events.decodeFunctionResult("getEvents", encode(page))[0] as Array<Record<string, unknown>>;
    expect(decoded).toEqual(
      ethersDecoded.map((e, i) => ({
        index: 500 + i,
        eventType: Number(e.eventType),
        value: e.value,
        currency: e.currency,
        timestamp: Number(e.timestamp),
        dataHash: e.dataHash,
        trustLevel: Number(e.trustLevel),
        sourceChainId: e.sourceChainId,
        sourceTxHash: e.sourceTxHash,
        metadata: e.metadata,
        submitter: (e.submitter as string).toLowerCase(),
        recordedAt: Number(e.recordedAt),
      })),
    );
  });

  it("refuses malformed return data", () => {
    const good = encode([randomEvent(1), randomEvent(2)]);
    expect(() => decodeMachineEvents(good.slice(0, good.length - 64))).toThrow();
    expect(() => decodeMachineEvents(`${good.slice(0, 20)}zz${good.slice(22)}`)).toThrow();
    expect(() => decodeMachineEvents(good.slice(2))).toThrow();
    // The array's length word claims more elements than there are.
    expect(() => decodeMachineEvents(`${good.slice(0, 66)}${"f".repeat(64)}${good.slice(130)}`)).toThrow();
    // A timestamp beyond 2^53 is not read as a number.
    const page = [randomEvent(3)];
    page[0]!.timestamp = 1n << 60n;
    expect(() => decodeMachineEvents(encode(page))).toThrow();
  });
});

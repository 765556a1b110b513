/**
 * The pooled CSPRNG bytes behind market IDs and challenge nonces (subgraphs/shared/crypto/random-pool.ts): every byte
 * handed out once, across refills of the pool.
 */
import { describe, expect, it } from "vitest";
import { pooledRandomBytes } from "../../subgraphs/shared/crypto/random-pool.js";

describe("pooled random bytes", () => {
  it("answers the length asked for, never the same bytes twice, across many refills of the pool", () => {
    const seen = new Set<string>();
    // 2,000 draws of 32 and 16 bytes: about 12 refills of the 4 KiB pool, draws straddling each refill.
    for (let i = 0; i < 2000; i++) {
      const length = i % 2 === 0 ? 32 : 16;
      const bytes = pooledRandomBytes(length);
      expect(bytes.length).toBe(length);
      seen.add(bytes.toString("hex"));
    }
    expect(seen.size).toBe(2000);
  });

  it("a draw is its own: the next draws do not change it", () => {
    const first = pooledRandomBytes(32);
    const copy = Buffer.from(first);
    for (let i = 0; i < 300; i++) pooledRandomBytes(32);
    expect(first.equals(copy)).toBe(true);
  });

  it("refuses more than the pool holds", () => {
    expect(() => pooledRandomBytes(4097)).toThrow(RangeError);
    expect(pooledRandomBytes(4096).length).toBe(4096);
  });
});

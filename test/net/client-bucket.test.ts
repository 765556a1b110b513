/**
 * The client bucket every per-IP count is kept for (subgraphs/shared/net/client-bucket.ts): an IPv4 address, or the
 * /64 of an IPv6 address, whatever its spelling.
 */
import { describe, expect, it } from "vitest";
import { clientBucket } from "../../subgraphs/shared/net/client-bucket.js";

describe("clientBucket", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["::ffff:cb00:7109", "203.0.113.9"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2:0:0:0:1", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:abcd::", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8::/64"],
    ["2001:db8:0:0:1::1", "2001:db8::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["::1", "::/64"],
  ])("%s -> %s", (ip, bucket) => {
    expect(clientBucket(ip)).toBe(bucket);
  });

  it("addresses of neighbouring /64s are apart", () => {
    expect(clientBucket("2001:db8:1:2::1")).not.toBe(clientBucket("2001:db8:1:3::1"));
    expect(clientBucket("2001:db8:1:2::1")).not.toBe(clientBucket("2001:db8:1:1:ffff:ffff:ffff:ffff"));
  });

  it("text that is not an address is a bucket of its own", () => {
    expect(clientBucket("unknown")).toBe("unknown");
  });

  it("answers stay right while many distinct addresses pass through the bounded memory of known ones", () => {
    const address = (i: number) => `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::${(i % 7) + 1}`;
    const expected = (i: number) => `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64`;
    // Both middle groups non-zero, so the expected text needs no zero compression.
    for (let i = 65_537; i < 90_537; i++) expect(clientBucket(address(i))).toBe(expected(i));
    for (const i of [65_537, 65_538, 75_536, 75_537, 90_536]) expect(clientBucket(address(i))).toBe(expected(i));
    expect(clientBucket("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(clientBucket("::ffff:192.0.2.7")).toBe("192.0.2.7");
  });
});

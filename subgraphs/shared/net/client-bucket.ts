/**
 * The unit every per-IP count is kept for (the shim's and the GraphQL listener's rate limits, the faucet's funding
 * limit and its two-factor lockout): an IPv4 address, or the /64 an IPv6 address lies in.
 *
 * An IPv6 subscriber is routed at least a /64 and a host may take any of its 2^64 addresses, so counting exact IPv6
 * addresses would give one client as many buckets as it likes. IPv4-mapped IPv6 (`::ffff:192.0.2.7`) is its IPv4
 * address, and every spelling of one address (`2001:DB8::1`, `2001:db8:0::1`) is one bucket. A zone index
 * (`fe80::1%eth0`) is dropped with the interface bits. Text that is not an address (`unknown`) is a bucket of its own.
 */
import ipaddr from "ipaddr.js";

/** Prefix length that groups IPv6 clients. */
export const IPV6_BUCKET_BITS = 64;

/**
 * Buckets already worked out, by address text: every request of a client names the same few addresses, and parsing
 * one costs microseconds on the read route. Bounded: emptied when full, so many distinct addresses cannot grow it.
 */
const known = new Map<string, string>();
const KNOWN_LIMIT = 10_000;

/** `192.0.2.7` for IPv4; `2001:db8:1:2::/64` for any address of that /64. */
export function clientBucket(ip: string): string {
  let bucket = known.get(ip);
  if (bucket === undefined) {
    bucket = bucketOf(ip);
    if (known.size >= KNOWN_LIMIT) known.clear();
    known.set(ip, bucket);
  }
  return bucket;
}

function bucketOf(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return ip;
  }
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts;
  const network = new ipaddr.IPv6([...parts.slice(0, IPV6_BUCKET_BITS / 16), 0, 0, 0, 0]);
  return `${network.toString()}/${IPV6_BUCKET_BITS}`;
}

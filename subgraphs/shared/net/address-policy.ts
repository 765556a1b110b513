/**
 * Which network addresses the platform may connect to when it calls a URL someone else chose (a machine's
 * `data_api`, a provider's runtime endpoint): public unicast only, unless an operator allows more explicitly.
 *
 * Every address is classified after normalisation, so spellings do not matter: the WHATWG URL parser already turns
 * decimal (`2130706433`), octal (`0177.0.0.1`), hex and short (`127.1`) IPv4 forms into dotted quads, and
 * `ipaddr.process` turns IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) back into IPv4 before the check.
 */
import ipaddr from "ipaddr.js";

/** Why an address is refused; each is a documented reason code of `OutboundRefusal`. */
export type BlockedRange = "loopback" | "private" | "link_local" | "metadata" | "multicast" | "reserved";

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Cloud metadata services: AWS/GCP/Azure/OpenStack/Oracle (169.254.169.254, IPv6 fd00:ec2::254), Alibaba
 * (100.100.100.200), Oracle's second (192.0.0.192). Named separately so the refusal says what it protected.
 */
const METADATA_ADDRESSES = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254"].map(
  (text) => ipaddr.parse(text).toNormalizedString(),
);

/** Host names that resolve to a metadata service inside clouds; refused before any lookup. */
const METADATA_HOSTNAMES = new Set(["metadata.google.internal", "metadata", "metadata.azure.internal", "instance-data", "instance-data.ec2.internal"]);

const RANGE_CLASS: Record<string, BlockedRange | undefined> = {
  // IPv4 (ipaddr.js range names)
  unspecified: "reserved",
  broadcast: "reserved",
  multicast: "multicast",
  linkLocal: "link_local",
  loopback: "loopback",
  carrierGradeNat: "private",
  private: "private",
  reserved: "reserved",
  as112: "reserved",
  amt: "reserved",
  // IPv6
  uniqueLocal: "private",
  deprecatedSiteLocal: "private",
  discard: "reserved",
  rfc6145: "reserved",
  rfc6052: "reserved",
  "6to4": "reserved",
  teredo: "reserved",
  benchmarking: "reserved",
  as112v6: "reserved",
  deprecatedOrchid: "reserved",
  orchid2: "reserved",
  droneRemoteIdProtocolEntityTags: "reserved",
  segmentRouting: "reserved",
};

/** IPv4 blocks ipaddr.js files under `unicast` that are not routable on the internet either. */
const EXTRA_RESERVED_V4: Array<[string, number]> = [
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
];

export class AddressPolicy {
  private readonly allowed: Array<[Parsed, number]>;

  /** `allowCidrs`: addresses or CIDRs an operator explicitly allows even inside a blocked range (tests, demos). */
  constructor(allowCidrs: readonly string[] = []) {
    this.allowed = allowCidrs.map((entry) => {
      if (entry.includes("/")) return ipaddr.parseCIDR(entry);
      const address = normalize(ipaddr.parse(entry));
      return [address, address.kind() === "ipv4" ? 32 : 128];
    });
  }

  /** The blocked range an IP address falls in, or null when it may be connected to. Throws on a non-address. */
  classify(text: string): BlockedRange | null {
    const address = normalize(ipaddr.parse(stripBrackets(text)));
    if (this.isAllowed(address)) return null;
    if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return "metadata";
    const blocked = RANGE_CLASS[address.range()];
    if (blocked) return blocked;
    if (address.kind() === "ipv4" && EXTRA_RESERVED_V4.some(([base, bits]) => address.match(ipaddr.parse(base), bits))) {
      return "reserved";
    }
    // Global unicast IPv6 is 2000::/3; anything else left unclassified is not meant to be reached.
    if (address.kind() === "ipv6" && !address.match(ipaddr.parse("2000::"), 3)) return "reserved";
    return null;
  }

  /** Refuses cloud metadata host names outright (they would resolve inside a cloud). */
  isMetadataHostname(hostname: string): boolean {
    return METADATA_HOSTNAMES.has(hostname.toLowerCase().replace(/\.$/, ""));
  }

  private isAllowed(address: Parsed): boolean {
    return this.allowed.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
  }
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** IPv4-mapped IPv6 becomes IPv4, so `::ffff:127.0.0.1` is judged as 127.0.0.1. */
function normalize(address: Parsed): Parsed {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY. A hop count is passed as a function: Fastify 5.12 turns a bare number into
 * "trust nothing" (it cannot check who the nearest hop is), which would silently ignore the documented setting. With
 * `n` the socket peer and the n-1 addresses before it in X-Forwarded-For are proxies, so the client is the address
 * n hops back; as everywhere hop counts are used, that holds only when the service is reachable through the proxies
 * alone (docs/operations.md prefers addresses or CIDRs).
 */
export function trustProxyOption(setting: boolean | number | string | undefined): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  return setting ?? false;
}

/**
 * Every per-IP count groups IPv6 clients by /64 (subgraphs/shared/net/client-bucket.ts), on every listener of the
 * platform over real sockets: the 1.0 and 2.0 ratings listeners, the markets listener, the GraphQL listener, the
 * documentation pages, and the faucet's funding limit. Two addresses of one /64 share a budget; another /64 has its
 * own; an IPv4-mapped IPv6 address is its IPv4 address. Before, each exact IPv6 address had a budget of its own.
 *
 * The platform trusts X-Forwarded-For (TRUST_PROXY=true), so each request names its client; the rate-limit windows
 * stand still and the subgraphs run on an injected clock (TOTP codes).
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { expectFaucetError, FaucetClient, rated, startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { get } from "../support/http.js";
import { graphql, PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

const LIMIT = 3;
let p: RatingsPlatform;
let faucet: FaucetClient;
const clock = manualClock();
beforeAll(async () => {
  p = await startRatingsPlatform(
    {
      TRUST_PROXY: "true",
      RATE_LIMIT_RATINGS_PER_IP: String(LIMIT),
      RATE_LIMIT_MARKETS_PER_IP: String(LIMIT),
      RATE_LIMIT_DOCS_PER_IP: String(LIMIT),
      FAUCET_FUND_PER_IP_PER_HOUR: "2",
    },
    { clock },
  );
  faucet = new FaucetClient(p, clock);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

let prefixCounter = 0;
/** Addresses spread over one fresh /64 (first, last and in between), and one of the next /64. */
function slash64() {
  const prefix = `2001:db8:64:${(++prefixCounter * 2).toString(16)}`;
  const next = `2001:db8:64:${(prefixCounter * 2 + 1).toString(16)}`;
  return { inside: [`${prefix}::`, `${prefix}::1`, `${prefix}:ffff:ffff:ffff:ffff`, `${prefix}:1234:5678:9abc:def0`], neighbour: `${next}::1` };
}

const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
const statusesOf = async (requests: Array<() => Promise<{ status: number }>>) => {
  const statuses: number[] = [];
  for (const request of requests) statuses.push((await request()).status);
  return statuses;
};

describe("per-IP limits count a /64 as one client", () => {
  it("on the ratings listeners (1.0 and 2.0 share the budget)", async () => {
    const { inside, neighbour } = slash64();
    const did = rated(p, 7).did;
    const statuses = await statusesOf([
      () => get(`${p.http}/mcr/${did}`, from(inside[0]!)),
      () => get(`${p.mcr2}/mcr/${did}`, from(inside[1]!)),
      () => get(`${p.http}/mcr/${did}`, from(inside[2]!)),
      () => get(`${p.http}/mcr/${did}`, from(inside[3]!)),
    ]);
    expect(statuses.slice(0, LIMIT).includes(429)).toBe(false);
    expect(statuses[LIMIT]).toBe(429);
    expect((await get(`${p.mcr2}/mcr/${did}`, from(inside[0]!))).status).toBe(429);
    expect((await get(`${p.http}/mcr/${did}`, from(neighbour))).status).toBe(200);
  });

  it("an IPv4-mapped IPv6 address is its IPv4 address", async () => {
    const did = rated(p, 7).did;
    const statuses = await statusesOf([
      () => get(`${p.http}/mcr/${did}`, from("198.51.100.7")),
      () => get(`${p.http}/mcr/${did}`, from("::ffff:198.51.100.7")),
      () => get(`${p.http}/mcr/${did}`, from("::ffff:c633:6407")),
      () => get(`${p.http}/mcr/${did}`, from("198.51.100.7")),
    ]);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await get(`${p.http}/mcr/${did}`, from("198.51.100.8"))).status).toBe(200);
  });

  it("on the markets listener", async () => {
    const { inside, neighbour } = slash64();
    const statuses = await statusesOf(inside.map((ip) => () => get(`${p.markets}/api/v1/payment-rails`, from(ip))));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await get(`${p.markets}/api/v1/payment-rails`, from(neighbour))).status).toBe(200);
  });

  it("on the GraphQL listener", async () => {
    const { inside, neighbour } = slash64();
    const query = OPERATIONS.mcrScorecard.document;
    const variables = { did: rated(p, 7).did, deployment: "V1" };
    const answers = [];
    for (const ip of inside) answers.push(await graphql(p.graphql, query, variables, { "x-forwarded-for": ip }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers[LIMIT]!.body.errors?.[0]?.extensions).toMatchObject({ code: "RATE_LIMITED", limit: "ratingsPerIp" });
    const other = await graphql(p.graphql, query, variables, { "x-forwarded-for": neighbour });
    expect({ status: other.status, errors: other.body.errors }).toEqual({ status: 200, errors: undefined });
  });

  it("on the documentation pages", async () => {
    const { inside, neighbour } = slash64();
    const statuses = await statusesOf([
      () => get(`${p.http}/openapi.json`, from(inside[0]!)),
      () => get(`${p.markets}/openapi.json`, from(inside[1]!)),
      () => get(new URL("/supergraph.graphql", p.graphql).href, from(inside[2]!)),
      () => get(`${p.http}/openapi.json`, from(inside[3]!)),
    ]);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await get(`${p.http}/openapi.json`, from(neighbour))).status).toBe(200);
  });
});

describe("the faucet's per-IP funding limit counts a /64 as one client", () => {
  it("FAUCET_FUND_PER_IP_PER_HOUR fundings from one /64, then 429 RATE_LIMITED; another /64 is funded", async () => {
    const { inside, neighbour } = slash64();
    const owners: Array<{ owner: string; totp: Awaited<ReturnType<FaucetClient["activate"]>> }> = [];
    // Each owner enrols from an IPv4 address of its own, so only the fund requests count against the /64.
    for (let i = 0; i < 4; i++) {
      const owner = Wallet.createRandom().address;
      owners.push({ owner, totp: await faucet.activate(owner, `198.51.101.${prefixCounter * 10 + i}`) });
    }
    const fund = (i: number, ip: string) => faucet.post("/faucet/fund", faucet.fundBody(owners[i]!.owner, faucet.code(owners[i]!.totp)), ip);
    expect((await fund(0, inside[0]!)).status).toBe(200);
    expect((await fund(1, inside[2]!)).status).toBe(200);
    const refused = await fund(2, inside[3]!);
    expectFaucetError(refused, 429, "RATE_LIMITED");
    const [row] = await p.platform.database!.prisma.$queryRaw<Array<{ count: bigint }>>`
      SELECT count(*) AS count FROM faucet_request WHERE client_ip = ${`${inside[0]!.replace(/::$/, "")}::/64`}`;
    expect(Number(row!.count)).toBe(2);
    expect((await fund(3, neighbour)).status).toBe(200);
  });
});

/**
 * Shared helpers of the document 3 suites: a platform with generous per-IP limits (PGlite, or its own PostgreSQL
 * database when DATABASE_URL is set), JSON requests to the markets listener under /api/v1 over real sockets, the
 * markets error envelope, and binding a demo machine to its on-chain identity with a real signed proof.
 */
import { Wallet } from "ethers";
import { expect } from "vitest";
import type { DemoMachine } from "../../subgraphs/shared/chain/demo-fixture.js";
import type { StartOptions } from "../../gateway/platform.js";
import type { MarketsServices } from "../../subgraphs/markets/index.js";
import { send, type HttpAnswer } from "../support/http.js";
import { openMachineSession, withMachineSession } from "../support/machine-sessions.js";
import { startVerifyPlatform, type VerifyPlatform } from "../verify/helpers.js";

export { PLATFORM_START_TIMEOUT_MS, usesPostgres } from "../support/platform.js";
export type { HttpAnswer };
export type MarketsPlatform = VerifyPlatform;

export function startMarketsPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<MarketsPlatform> {
  return startVerifyPlatform({ RATE_LIMIT_MARKETS_PER_IP: "1000000", ...env }, options);
}

export function marketsServices(p: MarketsPlatform): MarketsServices {
  const services = p.platform.services.markets as MarketsServices | undefined;
  if (!services) throw new Error("the platform built no markets subgraph");
  return services;
}

/** The platform's Prisma client (PGlite or PostgreSQL), to read rows back. */
export function prismaOf(p: MarketsPlatform) {
  return p.platform.database!.prisma;
}

/**
 * One request to `/api/v1<path>`; an object body is sent as JSON with `content-type: application/json`. On routes
 * that ask for the machine's authority, the session the suite opened for the machine is sent unless `headers` name
 * an `authorization` (empty: none is sent) (support/machine-sessions.ts).
 */
export function api(
  p: MarketsPlatform,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const hasBody = body !== undefined;
  const sent = withMachineSession(method, path, body, headers);
  return send(`${p.markets}/api/v1${path}`, {
    method,
    headers: hasBody ? { "content-type": "application/json", ...sent } : sent,
    body: hasBody ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
  });
}

/** A markets error: exactly `{"error":{"code","message"}}` with the status, JSON content type and no-store. */
export function expectMarketsError(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.status === status ? answer.json().error?.code : answer.text }).toEqual({ status, code });
  expect(Object.keys(answer.json())).toEqual(["error"]);
  expect(Object.keys(answer.json().error)).toEqual(["code", "message"]);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(answer.headers["cache-control"]).toBe("no-store");
}

/** Asserts a 2xx and returns the parsed body. */
export function expectOk(answer: HttpAnswer, status = 200): any {
  expect(answer.status, answer.text).toBe(status);
  return answer.json();
}

/** The identityRef of a demo machine (`did:service:<id>`). */
export const identityRefOf = (machine: DemoMachine) => machine.did;

/** A fresh identity challenge for `identityRef`, signed by `privateKey` (EIP-191): the identityProof body member. */
export async function signedProof(p: MarketsPlatform, identityRef: string, privateKey: string) {
  const challenge = expectOk(await api(p, "POST", "/machine-identity/challenges", { identityRef }), 201).item;
  const signature = await new Wallet(privateKey).signMessage(challenge.message);
  return { challengeId: challenge.challengeId as string, signature, challenge };
}

/**
 * Binds a demo machine with a proof signed by its controller: the new record (status active unless `status` says
 * otherwise), with a session of that controller for the suite's machine-bound writes. Each demo machine can be bound once per platform (one record per on-chain identity).
 */
export async function bindMachine(p: MarketsPlatform, machine: DemoMachine, extra: Record<string, unknown> = {}): Promise<any> {
  const identityRef = identityRefOf(machine);
  const { challengeId, signature } = await signedProof(p, identityRef, machine.controllerPrivateKey);
  const record = expectOk(
    await api(p, "POST", "/machines", { displayName: `machine ${machine.machineId}`, identityRef, identityProof: { challengeId, signature }, ...extra }),
    201,
  ).item;
  await openMachineSession(p, record.id, identityRef, machine.controllerPrivateKey);
  return record;
}

/** The header that carries a pairing token on market writes. */
export const agentHeaders = (token: string) => ({ "x-agent-pairing-token": token });

/**
 * Pairs `wallet` with the machine through the API (challenge signed EIP-191, create): the pairing item with its
 * pairingToken.
 */
export async function pairAgent(
  p: MarketsPlatform,
  machineId: string,
  wallet: { address: string; signMessage(message: string): Promise<string> },
  delegationPolicy: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<any> {
  const challenge = expectOk(await api(p, "POST", `/machines/${machineId}/agent-pairings/challenges`, { agentAddress: wallet.address }), 201).item;
  const signature = await wallet.signMessage(challenge.message);
  return expectOk(
    await api(p, "POST", `/machines/${machineId}/agent-pairings`, {
      agentAddress: wallet.address,
      agentProvider: "anthropic",
      agentRole: "machine-market-buyer",
      delegationPolicy,
      agentProof: { challengeId: challenge.challengeId, signature },
      ...extra,
    }),
    201,
  ).item;
}

/**
 * Demo machine 1 bound, with the demo provider as its runtime endpoint, and `agent` paired with it (the paid-order
 * suites' setup): the market machine ID and the pairing token.
 */
export async function providerMachineWithAgent(
  p: MarketsPlatform,
  agent: { address: string; signMessage(message: string): Promise<string> },
): Promise<{ machine: string; token: string }> {
  const machine = (await bindMachine(p, p.machine("active", 0))).id;
  const demoProvider = p.demo.markets!.provider;
  expectOk(
    await api(p, "PUT", `/machines/${machine}/runtime-endpoints/${demoProvider.providerKey}`, {
      endpointBaseUrl: demoProvider.url,
      authType: demoProvider.authType,
      authToken: demoProvider.authToken,
    }),
    201,
  );
  return { machine, token: (await pairAgent(p, machine, agent)).pairingToken };
}

/** A fresh quote for the demo price feed on `machineId`: `{searchId, quoteId}`. */
export async function priceFeedQuote(p: MarketsPlatform, machineId: string): Promise<{ searchId: string; quoteId: string; quote: any }> {
  const search = expectOk(await api(p, "POST", "/market/search", { machineId, skillKey: "oracle.price-feed" })).item;
  return { searchId: search.searchId, quoteId: search.quotes[0].id, quote: search.quotes[0] };
}

/** Creates an order from a fresh price-feed quote with the pairing token. */
export async function createOrder(p: MarketsPlatform, machineId: string, token: string, input: Record<string, unknown> = { pair: "ETH/USD" }) {
  const { searchId, quoteId } = await priceFeedQuote(p, machineId);
  return api(p, "POST", "/market/orders", { machineId, searchId, quoteId, input }, agentHeaders(token));
}

/**
 * The client package's flows end to end against one platform over real sockets (REST listeners, database, anvil):
 * chip evidence, the monetization toggle on both deployments behind the compatibility signal, a machine session,
 * pairing and rotating an agent, and a market order paid on each rail. Refusals come back as typed errors carrying
 * the envelope's code and status, and a refused flow leaves the platform's state as it was. Last, the typed GraphQL
 * documents (clients/graphql/) run against the gateway and read what the flows made.
 */
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  buyService,
  createMarketsClient,
  createRatings2Client,
  createRatingsClient,
  createVerifyClient,
  FlowError,
  ok,
  openMachineSession,
  pairAgent,
  rotateAgentSession,
  setMonetization,
  submitChipEvidence,
  type FlowProgress,
  type MarketsClient,
} from "../../clients/typescript/src/index.js";
import { paymentOverrides } from "../../clients/typescript/src/flows/payer.js";
import { MachineAcrossSubgraphsDocument, MarketMachineWithOrdersDocument, MarketOrderStatus, PendingChipEvidenceDocument } from "../../clients/graphql/generated/graphql.js";
import { DEV_OPERATOR_TOKEN } from "../../subgraphs/shared/config.js";
import { bindMachine, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../markets/helpers.js";

let p: MarketsPlatform;
let chain: JsonRpcProvider;
beforeAll(async () => {
  p = await startMarketsPlatform();
  chain = new JsonRpcProvider(p.platform.chain!.rpcUrl, p.demo.chainId, { staticNetwork: true });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  chain?.destroy();
  await p?.close();
});

describe("clients", () => {
  it("take base URLs from the environment variables and raise ApiError with the envelope's code and status", async () => {
    const env = { VERIFY_API_URL: p.http, RATINGS2_API_URL: p.mcr2, MARKETS_API_URL: p.markets };
    expect(createVerifyClient({ env }).baseUrl).toBe(p.http);
    expect(createRatings2Client({ env }).baseUrl).toBe(p.mcr2);
    expect(createMarketsClient({ env }).baseUrl).toBe(p.markets);
    expect(createMarketsClient({ env: { MARKETS_URL: p.markets } }).baseUrl).toBe(p.markets);
    const markets = createMarketsClient({ env });
    const refused = await ok(markets.api.GET("/api/v1/machines/{machineId}", { params: { path: { machineId: "mach_missing" } } })).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect({ code: refused.code, status: refused.status }).toEqual({ code: "NOT_FOUND", status: 404 });
    // Ratings answers `{ detail: "<message>" }`: the client names the code the documents give that message.
    const ratings = createRatingsClient({ env });
    const invalid = await ratings.api.GET("/machine/{did}", { params: { path: { did: "did:service:999999" } } }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ApiError);
    expect([invalid.code, invalid.status, invalid.envelope]).toEqual(["INVALID_ADDRESS", 400, { detail: "Invalid Ethereum address format" }]);
    // Verify's envelope `{ detail: { code, message } }`, without the onboarding token.
    const verify = createVerifyClient({ baseUrl: p.http, env: {} });
    const unauthorised = await verify.api.POST("/v1/verify/chip/challenge", { body: { machineId: "1" } }).catch((e) => e);
    expect([unauthorised.code, unauthorised.status]).toEqual(["ONBOARDING_AUTH_REQUIRED", 401]);
  });
});

describe("chip evidence", () => {
  it("challenge, evidence built with the kit, submitted: the receipt; an unknown machine is ApiError MACHINE_NOT_FOUND", async () => {
    const verify = createVerifyClient({ baseUrl: p.http, onboardingToken: p.demo.onboardingToken });
    const machine = p.machine("active", 1);
    const steps: string[] = [];
    const submitted = await submitChipEvidence(
      verify,
      machine.machineId,
      { leafCertPem: machine.chip.leafCertPem, chipPrivateKeyPem: machine.chip.privateKeyPem, controllerPrivateKey: machine.controllerPrivateKey },
      (progress) => steps.push(progress.step),
    );
    expect(steps).toEqual(["challenge", "built", "submitted"]);
    expect(submitted.receipt).toMatchObject({ status: "accepted", receiptId: expect.any(String) });
    expect(await prismaOf(p).verifyEvidence.count({ where: { machineId: machine.machineId } })).toBe(1);
    const refused = await submitChipEvidence(verify, "999999", { leafCertPem: "", chipPrivateKeyPem: "", controllerPrivateKey: "" }).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused.code, refused.status]).toEqual(["MACHINE_NOT_FOUND", 404]);
  });
});

describe("monetization toggle", () => {
  const owner = () => new Wallet(p.demo.ratings.fleetOwner.privateKey);
  const stateOf = async (machineId: string) => ok(createRatingsClient({ baseUrl: p.http }).api.GET("/machine/{key}/monetization", { params: { path: { key: machineId } } }));

  it("1.0: checks the signal, signs what it describes, PUTs it", async () => {
    const steps: FlowProgress[] = [];
    const state = await setMonetization(
      { client: createRatingsClient({ baseUrl: p.http }), deployment: "1.0" },
      { namespace: "service", machineId: "9", optedIn: true, signer: owner(), expect: { chainId: p.demo.chainId, registry: p.demo.contracts.IdentityRegistry }, onProgress: (s) => steps.push(s) },
    );
    expect(state).toMatchObject({ status: "OPTED_IN" });
    expect(steps.map((s) => s.step)).toEqual(["signal", "signed", "stored"]);
    expect(steps[0]!.detail).toMatchObject({ deployment: "1.0", chainId: String(p.demo.chainId), registry: p.demo.contracts.IdentityRegistry.toLowerCase() });
  });

  it("2.0: the signal names the MachineRegistry; the decision is stored on the 2.0 deployment", async () => {
    const machineId = p.demo.ratings.v2Machine.machineId;
    const state = await setMonetization({ client: createRatings2Client({ baseUrl: p.mcr2 }), deployment: "2.0" }, { namespace: "service", machineId, optedIn: false, signer: owner() });
    expect(state).toMatchObject({ status: "OPTED_OUT" });
  });

  it("refuses before signing when the signal does not match: another chain, another deployment, no signal; nothing stored", async () => {
    const before = await stateOf("10");
    const v1 = { client: createRatingsClient({ baseUrl: p.http }), deployment: "1.0" as const };
    const wrongChain = await setMonetization(v1, { namespace: "service", machineId: "10", optedIn: true, signer: owner(), expect: { chainId: 1 } }).catch((e) => e);
    expect(wrongChain).toBeInstanceOf(FlowError);
    expect(wrongChain.code).toBe("MONETIZATION_SIGNAL_MISMATCH");
    expect(wrongChain.details).toEqual({ chain_id: { expected: 1n, signal: p.demo.chainId } });
    // A client that believes it talks to 2.0 while the listener is 1.0.
    const wrongDeployment = await setMonetization({ client: createRatingsClient({ baseUrl: p.http }), deployment: "2.0" } as never, {
      namespace: "service",
      machineId: "10",
      optedIn: true,
      signer: owner(),
    }).catch((e) => e);
    expect([wrongDeployment.code, Object.keys(wrongDeployment.details)]).toEqual(["MONETIZATION_SIGNAL_MISMATCH", ["deployment"]]);
    const noSignal = await setMonetization(v1, { namespace: "other", machineId: "10", optedIn: true, signer: owner() }).catch((e) => e);
    expect([noSignal.name, noSignal.code]).toEqual(["FlowError", "MONETIZATION_SIGNAL_MISSING"]);
    expect(await stateOf("10")).toEqual(before);
  });
});

describe("machine authority, pairing and market orders", () => {
  const agentKey = () => new Wallet(p.demo.payments!.agents[0]!.privateKey, chain);
  let machineId: string;
  let asMachine: MarketsClient;
  let agent: MarketsClient;

  beforeAll(async () => {
    const demo = p.machine("active", 0);
    machineId = (await bindMachine(p, demo)).id;
    const opened = await openMachineSession(createMarketsClient({ baseUrl: p.markets }), machineId, new Wallet(demo.controllerPrivateKey));
    asMachine = opened.client;
    expect(opened.session).toMatchObject({ machineId, controllerAddress: new Wallet(demo.controllerPrivateKey).address });
    const provider = p.demo.markets!.provider;
    await ok(
      asMachine.api.PUT("/api/v1/machines/{machineId}/runtime-endpoints/{providerKey}", {
        params: { path: { machineId, providerKey: provider.providerKey } },
        body: { endpointBaseUrl: provider.url, authType: provider.authType, authToken: provider.authToken },
      }),
    );
    agent = (await pairAgent(asMachine, { machineId, agent: agentKey() })).agentClient;
  });

  it("a machine session opens only with the controller's key: another key is ApiError, no session", async () => {
    const sessions = await prismaOf(p).marketMachineSession.count();
    const refused = await openMachineSession(createMarketsClient({ baseUrl: p.markets }), machineId, Wallet.createRandom()).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused.status, refused.code]).toEqual([401, "MACHINE_IDENTITY_PROOF_INVALID"]);
    expect(await prismaOf(p).marketMachineSession.count()).toBe(sessions);
  });

  it("pairs an agent and rotates its session: the old token stops working", async () => {
    const key = new Wallet(p.demo.payments!.agents[1]!.privateKey);
    const steps: string[] = [];
    const { pairing, agentClient } = await pairAgent(asMachine, { machineId, agent: key, onProgress: (s) => steps.push(s.step) });
    expect(steps).toEqual(["agent-signed", "paired"]);
    expect(pairing).toMatchObject({ machineId, agentAddress: key.address, status: "active" });
    const rotated = await rotateAgentSession(agentClient, machineId, pairing.id, key);
    const search = (client: MarketsClient) => ok(client.api.POST("/api/v1/market/search", { body: { machineId, skillKey: "oracle.price-feed" } }));
    expect((await search(rotated.agentClient)).item.quotes.length).toBeGreaterThan(0);
    const stale = await search(agentClient).catch((e) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect([stale.status, stale.code]).toEqual([401, "AGENT_AUTH_INVALID"]);
  });

  it.each(["not-required", "wallet", "onchain-escrow", "x402"] as const)("search, order, pay (%s), execute and confirm", async (rail) => {
    const steps: string[] = [];
    const result = await buyService(asMachine, agent, { machineId, skillKey: "oracle.price-feed", input: { pair: "ETH/USD" }, rail, payer: agentKey(), onProgress: (s) => steps.push(s.step) });
    expect(result.order.status).toBe("confirmed");
    const payment = await prismaOf(p).marketPayment.findUnique({ where: { orderId: result.order.id } });
    expect(payment!.status).toBe(rail === "not-required" ? "not_required" : "released");
    expect(steps[0]).toBe("quote");
    expect(steps.at(-1)).toBe("settled");
    expect(result.payment.status).toBe(payment!.status);
  });

  it("two payments from one key in quick succession get their own nonces, on a provider that shares requests for 250 ms", async () => {
    const payer = agentKey();
    const token = new Contract(p.demo.payments!.stablecoin.address, ["function approve(address spender, uint256 value) returns (bool)"], payer);
    const spender = p.demo.payments!.escrow.address;
    const first = await (await token.approve(spender, 1n, await paymentOverrides(payer))).wait();
    const second = await (await token.approve(spender, 2n, await paymentOverrides(payer))).wait();
    const [a, b] = await Promise.all([chain.getTransaction(first!.hash), chain.getTransaction(second!.hash)]);
    expect(b!.nonce).toBe(a!.nonce + 1);
    expect([first!.status, second!.status]).toEqual([1, 1]);
  });

  it("typed GraphQL documents read the machine across the subgraphs, the pending evidence and the machine's orders", async () => {
    const query = async <R, V>(document: TypedDocumentNode<R, V>, variables: V, token?: string): Promise<R> => {
      const response = await fetch(p.graphql, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query: print(document), variables }),
      });
      const body = (await response.json()) as { data?: R; errors?: unknown[] };
      expect(body.errors).toBeUndefined();
      return body.data!;
    };
    const demo = p.machine("active", 0);
    const { machine } = await query(MachineAcrossSubgraphsDocument, { machineId: demo.machineId });
    expect(machine!.verification!.didController.address.toLowerCase()).toBe(new Wallet(demo.controllerPrivateKey).address.toLowerCase());
    expect(machine!.marketMachine).toMatchObject({ id: machineId });
    expect(typeof machine!.rating?.mcrScore === "number" || machine!.rating === null).toBe(true);
    const { pendingChipEvidence } = await query(PendingChipEvidenceDocument, { limit: 10 }, DEV_OPERATOR_TOKEN);
    expect(pendingChipEvidence.map((e) => e.machineId)).toContain(p.machine("active", 1).machineId);
    const { marketMachine, marketOrders } = await query(MarketMachineWithOrdersDocument, { id: machineId, limit: 50 });
    expect(marketMachine.id).toBe(machineId);
    const confirmed = marketOrders.items.filter((order) => order.status === MarketOrderStatus.Confirmed);
    expect(confirmed.length).toBeGreaterThanOrEqual(4);
  });

  it("a rail the payer cannot pay without a key is refused before anything is paid", async () => {
    const refused = await buyService(asMachine, agent, { machineId, skillKey: "oracle.price-feed", rail: "wallet" }).catch((e) => e);
    expect([refused.name, refused.code]).toEqual(["FlowError", "PAYER_REQUIRED"]);
  });
});

/**
 * Several payment chains (docs/markets-payments.md "Payment chains"): the platform's embedded anvil (chain A) and a
 * second anvil under another chain ID (chain B) with its own TestStablecoin, deployed from the project's artifacts and
 * configured with PAYMENT_CHAINS. Over the real REST shim: GET /payment-rails and a purchase's transfer intent offer
 * both chains; a purchase paid on chain B is checked on chain B's node and spends (chain B, hash, log); a proof naming
 * chain A for a transfer made on chain B (and the reverse) is refused, a chain that is not configured is
 * PURCHASE_RAIL_INVALID (a stream order's or market wallet proof's PAYMENT_RPC_REQUIRED), each with state unchanged; a
 * stream order and a market wallet payment are paid on chain B too; one (hash, log) on two chains is two spent rows. PAYMENT_CHAINS is validated at start-up.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Contract, ContractFactory, NonceManager, parseEther, toBeHex, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArtifacts, contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";
import { startDevChain, type DevChain } from "../../subgraphs/shared/chain/devchain.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { loadPaymentsConfig } from "../../subgraphs/shared/config/payments.js";
import { spendTransfer } from "../../subgraphs/markets/orders/payments/spent.repository.js";
import { agentHeaders, api, createOrder, expectMarketsError, providerMachineWithAgent, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../markets/helpers.js";
import { graphql } from "../support/platform.js";
import { buyerCall, chainOf, createMarket, purchaseBody, purchaseState, type Market } from "./purchases/purchases-helpers.js";
import { newBuyer, orderState } from "./orders/orders-helpers.js";

const CHAIN_B = 424242;

describe("payments on two chains", () => {
  let dir: string;
  let nodeB: DevChain;
  let providerB: JsonRpcProvider;
  let tokenB: string;
  let payeeB: string;
  let p: MarketsPlatform;
  let m: Market;
  let chainA: ReturnType<typeof chainOf>;
  let machine: string;
  let token: string;

  /** A mined stablecoin transfer on chain B by `from`: its hash; `confirm` mines one more block (chain B needs 2). */
  const transferB = async (from: Wallet, to: string, amount: bigint, confirm = true) => {
    const hash = (await minedReceipt(await (new Contract(tokenB, contractInterface("TestStablecoin"), new NonceManager(from.connect(providerB))).transfer as any)(to, amount))).hash as string;
    if (confirm) await providerB.send("evm_mine", []);
    return hash;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "chain-b-"));
    nodeB = await startDevChain({ dataDir: dir, port: 0, chainId: CHAIN_B });
    providerB = createProvider(nodeB.rpcUrl, { chainId: CHAIN_B, timeoutMs: 10_000 });
    const deployer = new NonceManager(new Wallet(DEV_DEPLOYER_KEY, providerB));
    const artifact = loadArtifacts().TestStablecoin;
    const deployed = await new ContractFactory(artifact.abi, artifact.bytecode, deployer).deploy();
    await minedReceipt(deployed.deploymentTransaction());
    tokenB = await deployed.getAddress();
    payeeB = Wallet.createRandom().address;
    p = await startMarketsPlatform({ PAYMENT_CHAINS: JSON.stringify([{ chainId: CHAIN_B, rpcUrl: nodeB.rpcUrl, token: tokenB, payee: payeeB, confirmations: 2 }]) });
    const buyerKey = p.demo.payments!.agents[0].privateKey;
    // The same agent pays market orders (machine active 0) and purchases (paired with machine active 2).
    ({ machine, token } = await providerMachineWithAgent(p, new Wallet(buyerKey)));
    m = await createMarket(p, 1, 2, buyerKey);
    chainA = chainOf(p);
    // The buyer holds gas and stablecoin on chain B too.
    const buyer = new Wallet(buyerKey);
    await providerB.send("anvil_setBalance", [buyer.address, toBeHex(parseEther("10"))]);
    await minedReceipt(await (new Contract(tokenB, contractInterface("TestStablecoin"), deployer).mint as any)(buyer.address, 1_000_000_000n));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chainA?.provider.destroy();
    providerB?.destroy();
    await p?.close();
    await nodeB?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const pending = async () => expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 201).item;
  const intent = (id: string, body: Record<string, unknown>) => buyerCall(p, m, "POST", `/purchases/${id}/payment-intent`, body);
  const proof = (id: string, body: Record<string, unknown>) => buyerCall(p, m, "POST", `/purchases/${id}/payment-proof`, body);
  const spentRows = (txHash: string) => prismaOf(p).spentTransaction.findMany({ where: { txHash: txHash.toLowerCase() }, orderBy: { chainId: "asc" } });

  it("GET /payment-rails and the transfer intent offer both chains, each with its stablecoin and payee", async () => {
    const { items } = expectOk(await api(p, "GET", "/payment-rails"));
    const transfer = items.find((r: any) => r.type === "transfer");
    expect((await graphql(p.graphql, `{ paymentRails { ... on TransferPaymentRail { type chains { chain chainId token { address decimals symbol } payTo confirmations } token { address decimals symbol } payTo proof }
      ... on X402PaymentRail { type x402Version scheme network asset payTo extra { name version } } } }`)).body.data.paymentRails).toEqual(items);
    const home = { chain: "peaq", chainId: String(p.demo.chainId), payTo: chainA.payments.payee.address };
    expect(transfer.chains).toEqual([
      { ...home, token: { address: chainA.payments.stablecoin.address, decimals: 6, symbol: "USD" }, confirmations: 1 },
      { chain: `eip155:${CHAIN_B}`, chainId: String(CHAIN_B), token: { address: tokenB, decimals: 6, symbol: "USD" }, payTo: payeeB, confirmations: 2 },
    ]);
    const purchase = await pending();
    const before = await purchaseState(p, purchase.id);
    expectMarketsError(await intent(purchase.id, { rail: { type: "transfer", destination: { chain: "999" } } }), 400, "PURCHASE_RAIL_INVALID");
    expectMarketsError(await intent(purchase.id, { rail: { type: "transfer", destination: { chain: String(CHAIN_B), token: chainA.payments.stablecoin.address } } }), 400, "PURCHASE_RAIL_INVALID");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
    const item = expectOk(await intent(purchase.id, { rail: { type: "transfer", destination: { chain: String(CHAIN_B) } } })).item;
    expect(item.paymentIntent.destination).toEqual({ chain: `eip155:${CHAIN_B}`, chainId: String(CHAIN_B), token: tokenB, payTo: payeeB, confirmations: 2, decimals: 6 });
    expect(item.paymentIntent.destinations.map((d: any) => d.chainId)).toEqual([String(p.demo.chainId), String(CHAIN_B)]);
  });

  it("a purchase paid on chain B: wrong chain and unconfigured chain refused with state unchanged, then paid and spent on chain B", async () => {
    const purchase = await pending();
    const item = expectOk(await intent(purchase.id, { rail: "transfer" })).item;
    const amount = BigInt(item.paymentIntent.amountRaw);
    const before = await purchaseState(p, purchase.id);
    // Mined, but chain B needs two blocks: PAYMENT_NOT_MINED until the next block, state unchanged.
    const onB = await transferB(m.buyer.wallet, payeeB, amount, false);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: String(CHAIN_B), transactionHash: onB }), 409, "PAYMENT_NOT_MINED");
    await providerB.send("evm_mine", []);
    // The intent's default destination is chain A: the chain-B transfer is unknown there.
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: onB }), 409, "PAYMENT_NOT_MINED");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: String(p.demo.chainId), transactionHash: onB }), 409, "PAYMENT_NOT_MINED");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: "999", transactionHash: onB }), 400, "PURCHASE_RAIL_INVALID");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: String(CHAIN_B), token: chainA.payments.stablecoin.address, transactionHash: onB }), 400, "PURCHASE_RAIL_INVALID");
    // A transfer on chain A to chain A's payee proven as chain B's: unknown on chain B.
    const onA = await chainA.transfer(m.buyer.wallet, chainA.payments.payee.address, amount);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: String(CHAIN_B), transactionHash: onA }), 409, "PAYMENT_NOT_MINED");
    // Chain B's stablecoin paid to chain A's payee is no chain-B payment.
    const wrongPayee = await transferB(m.buyer.wallet, chainA.payments.payee.address, amount);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", chain: `eip155:${CHAIN_B}`, transactionHash: wrongPayee }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
    expect(await spentRows(onB)).toEqual([]);

    const paid = expectOk(await proof(purchase.id, { rail: "transfer", chain: `eip155:${CHAIN_B}`, transactionHash: onB })).item;
    expect(paid).toMatchObject({ status: "paid", payment: { rail: "transfer", transactionHash: onB.toLowerCase(), chainId: String(CHAIN_B), payer: m.buyer.wallet.address } });
    expect((await spentRows(onB)).map((r: any) => [r.chainId, r.kind, r.paidId])).toEqual([[String(CHAIN_B), "stream_purchase", purchase.id]]);
    // The chain-A transfer still pays another purchase on chain A (GraphQL, naming the chain by ID).
    const second = await pending();
    expectOk(await intent(second.id, { rail: "transfer" }));
    const mutation = `mutation ($t: String, $id: String!, $input: JSONObject) { submitPurchasePaymentProof(pairingToken: $t, purchaseId: $id, input: $input) { status payment } }`;
    const answer = await graphql(p.graphql, mutation, { t: m.buyer.token, id: second.id, input: { rail: "transfer", chain: String(p.demo.chainId), transactionHash: onA } });
    expect(answer.body.data.submitPurchasePaymentProof).toMatchObject({ status: "PAID", payment: { chainId: String(p.demo.chainId), transactionHash: onA.toLowerCase() } });
    expect((await spentRows(onA)).map((r: any) => [r.chainId, r.paidId])).toEqual([[String(p.demo.chainId), second.id]]);
  });

  it("a stream order proof names its chain: paid on chain B; an unconfigured chain PAYMENT_RPC_REQUIRED with state unchanged", async () => {
    const buyer = newBuyer();
    const order = expectOk(await api(p, "POST", "/stream/orders", { listingId: m.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: m.buyer.wallet.address }), 201).item;
    const amount = BigInt(Math.round(Number(order.price.amount) * 1e6));
    const before = await orderState(p, order.id);
    const onB = await transferB(m.buyer.wallet, payeeB, amount, false);
    const pay = (body: Record<string, unknown>) => api(p, "POST", `/stream/orders/${order.id}/payment`, { paymentReference: onB, ...body });
    expectMarketsError(await pay({ proof: { chainId: String(CHAIN_B), txHash: onB } }), 409, "PAYMENT_NOT_MINED");
    await providerB.send("evm_mine", []);
    expectMarketsError(await pay({ proof: { chainId: "999", txHash: onB } }), 400, "PAYMENT_RPC_REQUIRED");
    expectMarketsError(await pay({ proof: { chainId: String(p.demo.chainId), txHash: onB } }), 409, "PAYMENT_NOT_MINED");
    expect(await orderState(p, order.id)).toEqual(before);
    const paid = expectOk(await pay({ proof: { chainId: String(CHAIN_B), txHash: onB } })).item;
    expect(paid.status).toBe("paid");
    expect((await spentRows(onB)).map((r: any) => [r.chainId, r.kind])).toEqual([[String(CHAIN_B), "stream_order"]]);
  });

  it("a market wallet proof names its chain: paid on chain B with chain B's stablecoin and payee; an unconfigured chain refused", async () => {
    const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const intent = expectOk(await post(order.id, "/payment-intent", { rail: "wallet" })).item;
    const amount = BigInt(intent.payment.amountRaw);
    const state = async () => {
      const prisma = prismaOf(p);
      return Promise.all([prisma.marketPayment.findUnique({ where: { orderId: order.id } }), prisma.marketOrder.findUnique({ where: { id: order.id } }), prisma.marketAuditEvent.count({ where: { machineId: machine } })]);
    };
    const before = await state();
    const onB = await transferB(m.buyer.wallet, payeeB, amount, false);
    expectMarketsError(await post(order.id, "/payment-proof", { txHash: onB, chainId: String(CHAIN_B) }), 409, "PAYMENT_NOT_MINED");
    await providerB.send("evm_mine", []);
    // Chain A's payee on chain B pays nothing there; chain B's transfer is unknown on chain A; chain 999 has no RPC.
    const toPayeeA = await transferB(m.buyer.wallet, chainA.payments.payee.address, amount);
    expectMarketsError(await post(order.id, "/payment-proof", { txHash: toPayeeA, chainId: String(CHAIN_B) }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expectMarketsError(await post(order.id, "/payment-proof", { txHash: onB }), 409, "PAYMENT_NOT_MINED");
    expectMarketsError(await post(order.id, "/payment-proof", { txHash: onB, chainId: "999" }), 400, "PAYMENT_RPC_REQUIRED");
    expect(await state()).toEqual(before);
    const proved = expectOk(await post(order.id, "/payment-proof", { txHash: onB, chainId: String(CHAIN_B) })).item;
    expect(proved.payment.status).toBe("held");
    expect((await spentRows(onB)).map((r: any) => [r.chainId, r.kind])).toEqual([[String(CHAIN_B), "market_payment"]]);
  });

  it("one transaction hash and log on two chains are two transfers; on one chain, one", async () => {
    const hash = `0x${"ab".repeat(32)}`;
    const spend = (chainId: string, paidId: string) => prismaOf(p).$transaction((tx: any) => spendTransfer(tx, { chainId, txHash: hash, logIndex: 0 }, "stream_purchase", paidId, new Date()));
    await spend(String(p.demo.chainId), "paid-on-a");
    await spend(String(CHAIN_B), "paid-on-b");
    await expect(spend(String(CHAIN_B), "paid-again")).rejects.toMatchObject({ code: "PAYMENT_TX_ALREADY_USED" });
    expect((await spentRows(hash)).map((r: any) => [r.chainId, r.paidId])).toEqual([
      [String(p.demo.chainId), "paid-on-a"],
      [String(CHAIN_B), "paid-on-b"],
    ].sort());
  });

  it("PAYMENT_CHAINS is validated at start-up with a clear error", () => {
    const entry = { chainId: CHAIN_B, rpcUrl: "http://127.0.0.1:9", token: tokenB, payee: payeeB };
    const load = (value: unknown) => loadPaymentsConfig({ PAYMENT_CHAINS: typeof value === "string" ? value : JSON.stringify(value) }, 3338);
    expect(load([entry]).chains).toEqual([{ ...entry, chainId: String(CHAIN_B), confirmations: 1 }]);
    expect(load([{ ...entry, confirmations: 12 }]).chains[0]!.confirmations).toBe(12);
    expect(() => load([{ ...entry, confirmations: 0 }])).toThrow(/confirmations must be an integer 1..1000/);
    expect(load([entry]).rpcUrls[String(CHAIN_B)]).toBe("http://127.0.0.1:9");
    expect(loadPaymentsConfig({}, 3338).chains).toEqual([]);
    expect(() => load("not json")).toThrow(/PAYMENT_CHAINS is not valid JSON/);
    expect(() => load({})).toThrow(/PAYMENT_CHAINS must be a JSON array/);
    expect(() => load([{ ...entry, chainId: 0 }])).toThrow(/chainId must be a positive integer/);
    expect(() => load([{ ...entry, chainId: 3338 }])).toThrow(/platform's chain/);
    expect(() => load([entry, entry])).toThrow(/listed twice/);
    expect(() => load([{ ...entry, rpcUrl: "ws://x" }])).toThrow(/rpcUrl must be an http\(s\) URL/);
    expect(() => load([{ ...entry, token: "0x12" }])).toThrow(/token must be an EVM address/);
    expect(() => load([{ ...entry, payee: "nope" }])).toThrow(/payee must be an EVM address/);
    expect(() => load([{ ...entry, extra: 1 }])).toThrow(/unknown field/);
    expect(() => loadPaymentsConfig({ PAYMENT_CHAINS: JSON.stringify([entry]), PAYMENT_RPC_URLS: `${CHAIN_B}=http://127.0.0.1:10` }, 3338)).toThrow(/different RPC URLs/);
  });
});

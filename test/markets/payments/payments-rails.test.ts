/**
 * The chain payment rails end to end over the real REST shim, gateway and markets subgraph, against the embedded anvil
 * with TestStablecoin and PaymentEscrow (docs/markets-payments.md; public notes 2.7 and 5.2): intents naming token,
 * payee and amount; the wallet proof in `rpc` mode with the five documented codes, `recorded` refused by default; one payment per
 * transaction hash; escrow lock (idempotent), release after confirm, refund; x402 proof, settlement during execute and
 * auto-confirmation. Every refusal is checked to leave the payment, the order and the audit log as they were.
 */
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt, polledReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { randomNonce, signAuthorization, type TokenDomain } from "../../../subgraphs/markets/orders/payments/eip3009.js";
import { runCli } from "../../support/cli.js";
import { freePort } from "../../support/processes.js";
import {
  agentHeaders,
  api,
  createOrder,
  expectMarketsError,
  expectOk,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  type MarketsPlatform,
  providerMachineWithAgent,
} from "../helpers.js";

const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD in 6-decimal units

describe("payment rails on chain", () => {
  let p: MarketsPlatform;
  let machine: string;
  let token: string;
  let agent: Wallet;
  let provider: JsonRpcProvider;
  let payments: DemoPaymentsFixture;
  let stablecoin: Contract;
  let domain: TokenDomain;

  beforeAll(async () => {
    const closed = await freePort();
    p = await startMarketsPlatform({ PAYMENT_RPC_URLS: `31337=http://127.0.0.1:${closed}` });
    payments = p.demo.payments!;
    provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    agent = new Wallet(payments.agents[0].privateKey, provider);
    stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
    domain = { name: payments.stablecoin.name, version: payments.stablecoin.version, chainId: p.demo.chainId, verifyingContract: payments.stablecoin.address };
    ({ machine, token } = await providerMachineWithAgent(p, agent));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    provider?.destroy();
    await p?.close();
  });

  const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const balance = async (address: string) => (await stablecoin.balanceOf(address)) as bigint;

  async function orderWithIntent(rail: string, extra: Record<string, unknown> = {}) {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const intent = expectOk(await post(order.id, "/payment-intent", { rail, ...extra })).item;
    return { orderId: order.id as string, intent };
  }

  /** Everything a refusal must leave alone: the payment and order rows and the order's audit events. */
  async function state(orderId: string) {
    const prisma = prismaOf(p);
    const [payment, order, events] = await Promise.all([
      prisma.marketPayment.findUnique({ where: { orderId } }),
      prisma.marketOrder.findUnique({ where: { id: orderId } }),
      prisma.marketAuditEvent.findMany({ where: { machineId: machine } }),
    ]);
    return { payment, order, events: events.filter((e: any) => (e.data as any)?.orderId === orderId).length };
  }

  /** The order's market.* audit kinds, oldest first (execute also writes task.* events naming the order). */
  async function kinds(orderId: string): Promise<string[]> {
    const events = await prismaOf(p).marketAuditEvent.findMany({ where: { machineId: machine }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] });
    return events.filter((e: any) => (e.data as any)?.orderId === orderId && e.kind.startsWith("market.")).map((e: any) => e.kind);
  }

  async function transfer(to: string, amount: bigint): Promise<string> {
    return (await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).transfer(to, amount))).hash;
  }

  describe("intents", () => {
    it("wallet: names the token, payee, chain and raw amount; the order waits for payment", async () => {
      const { orderId, intent } = await orderWithIntent("wallet", { payer: agent.address });
      expect(intent.orderStatus).toBe("payment_pending");
      expect(intent.payment).toMatchObject({
        rail: "wallet",
        status: "intent_created",
        required: true,
        amount: "0.01",
        currency: "USD",
        chainId: String(p.demo.chainId),
        token: payments.stablecoin.address,
        payee: payments.payee.address,
        payer: agent.address,
        amountRaw: AMOUNT_RAW.toString(),
      });
      expect(await kinds(orderId)).toEqual(["market.order.created", "market.payment.intent-created"]);
      // The CLI's demo agent (demo.json markets.agent) holds stablecoin to pay with.
      expect(await balance(p.demo.markets!.agent!.address)).toBeGreaterThan(0n);
    });

    it("a bad payer address is VALIDATION_ERROR and writes nothing", async () => {
      const order = expectOk(await createOrder(p, machine, token), 201).item;
      const before = await state(order.id);
      expectMarketsError(await post(order.id, "/payment-intent", { rail: "wallet", payer: "0x1234" }), 400, "VALIDATION_ERROR");
      expect(await state(order.id)).toEqual(before);
      expect(before.payment).toBeNull();
    });

    it("onchain-escrow names the escrow and the nonce a signed deposit uses; x402 answers v1 requirements", async () => {
      const escrow = await orderWithIntent("onchain-escrow");
      const escrowContract = new Contract(payments.escrow.address, contractInterface("PaymentEscrow"), provider);
      const details = escrow.intent.payment.details;
      expect(details).toMatchObject({ escrow: payments.escrow.address, amountRaw: "10000" });
      expect(details.lockNonce).toBe(await escrowContract.lockNonce(details.orderKey, payments.payee.address));
      const x402 = await orderWithIntent("x402");
      expect(x402.intent.payment.details.paymentRequirements).toMatchObject({
        scheme: "exact",
        network: "peaq",
        maxAmountRequired: "10000",
        payTo: payments.payee.address,
        asset: payments.stablecoin.address,
        extra: { name: "Test USD", version: "2" },
      });
      expect(x402.intent.payment.details.paymentRequirements.resource).toMatch(new RegExp(`/api/v1/market/orders/${x402.orderId}/execute$`));
    });
  });

  describe("wallet rail: payment-proof", () => {
    it("rpc mode: the real transfer holds the payment, readies the order and upgrades the rail; then execute, confirm, release", async () => {
      const { orderId } = await orderWithIntent("wallet");
      const txHash = await transfer(payments.payee.address, AMOUNT_RAW);
      const proved = expectOk(await post(orderId, "/payment-proof", { mode: "rpc", txHash, from: agent.address })).item;
      expect(proved.orderStatus).toBe("ready");
      expect(proved.payment).toMatchObject({ status: "held", rail: "wdk-usdt-transfer", proofMode: "rpc", txHash: txHash.toLowerCase(), payer: agent.address });
      // The same proof again answers the payment as it is.
      expect(expectOk(await post(orderId, "/payment-proof", { mode: "rpc", txHash, from: agent.address })).item.payment.status).toBe("held");

      expect(expectOk(await post(orderId, "/execute")).item.order.status).toBe("delivered");
      expectMarketsError(await post(orderId, "/payment/release"), 409, "ORDER_STATE_INVALID");
      expect(expectOk(await post(orderId, "/confirm")).item.status).toBe("confirmed");
      const released = expectOk(await post(orderId, "/payment/release")).item;
      expect(released.payment.status).toBe("released");
      expectMarketsError(await post(orderId, "/payment/release"), 409, "ORDER_STATE_INVALID");
      expect(await kinds(orderId)).toEqual([
        "market.order.created",
        "market.payment.intent-created",
        "market.payment.proof-recorded",
        "market.order.executed",
        "market.order.confirmed",
        "market.payment.released",
      ]);
    });

    it("each documented code for a transaction that does not pay, and nothing changes", async () => {
      const { orderId } = await orderWithIntent("wallet");
      const before = await state(orderId);
      const short = await transfer(payments.payee.address, AMOUNT_RAW - 1n);
      const proof = (body: Record<string, unknown>) => post(orderId, "/payment-proof", { from: agent.address, ...body });
      expectMarketsError(await proof({ mode: "rpc", txHash: short }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
      expectMarketsError(await proof({ txHash: `0x${"77".repeat(32)}` }), 409, "PAYMENT_NOT_MINED");

      // The agent's own transfer of more than it holds, sent past estimation: mined, reverted.
      const overdraft = (await balance(agent.address)) + 1n;
      const reverted = await (stablecoin.connect(new NonceManager(agent)) as Contract).transfer(payments.payee.address, overdraft, { gasLimit: 100_000 });
      expect((await polledReceipt(reverted)).status).toBe(0);
      expectMarketsError(await proof({ txHash: reverted.hash }), 402, "PAYMENT_TX_FAILED");

      expectMarketsError(await proof({ txHash: short, chainId: "1" }), 400, "PAYMENT_RPC_REQUIRED");
      expectMarketsError(await proof({ txHash: short, chainId: "31337" }), 502, "PAYMENT_RPC_ERROR");
      expectMarketsError(await proof({ txHash: "0x1234" }), 400, "VALIDATION_ERROR");
      expectMarketsError(await proof({ mode: "guess", txHash: short }), 400, "VALIDATION_ERROR");
      expect(await state(orderId)).toEqual(before);
    });

    it("a transaction hash pays one payment only", async () => {
      const first = await orderWithIntent("wallet");
      const second = await orderWithIntent("wallet");
      const txHash = await transfer(payments.payee.address, AMOUNT_RAW);
      expectOk(await post(first.orderId, "/payment-proof", { txHash, from: agent.address }));
      const before = await state(second.orderId);
      expectMarketsError(await post(second.orderId, "/payment-proof", { txHash, from: agent.address }), 409, "PAYMENT_TX_ALREADY_USED");
      expect(await state(second.orderId)).toEqual(before);
    });

    it("recorded mode is off by default: a made-up hash is refused and changes nothing", async () => {
      const { orderId } = await orderWithIntent("wallet");
      const before = await state(orderId);
      const made = `0x${"5e".repeat(32)}`;
      expectMarketsError(await post(orderId, "/payment-proof", { mode: "recorded", txHash: made, from: agent.address }), 403, "PAYMENT_PROOF_MODE_DISABLED");
      // A real transfer's hash in recorded mode is refused as well: the mode itself is off.
      const real = await transfer(payments.payee.address, AMOUNT_RAW);
      expectMarketsError(await post(orderId, "/payment-proof", { mode: "recorded", txHash: real, from: agent.address }), 403, "PAYMENT_PROOF_MODE_DISABLED");
      expect(await state(orderId)).toEqual(before);
      expect(before.payment!.status).toBe("intent_created");
    });
  });

  it("cli market pay --rail wallet: intent, the demo agent's transfer, the rpc proof", async () => {
    // The CLI pays from the demo market agent, so the order is that agent's pairing's: the payer is who pays.
    const cliToken = (await pairAgent(p, machine, new Wallet(p.demo.markets!.agent!.privateKey))).pairingToken;
    const order = expectOk(await createOrder(p, machine, cliToken), 201).item;
    const cliAgent = p.demo.markets!.agent!.address;
    const before = await balance(cliAgent);
    const run = await runCli(p, ["market", "pay", "--order", order.id, "--rail", "wallet", "--token", cliToken, "--api", p.markets]);
    expect(run.code, run.stderr).toBe(0);
    const steps = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(steps.map((s) => s.step)).toEqual(["pay", "transfer", "proof"]);
    expect(steps[2]).toMatchObject({ paymentStatus: "held", rail: "wdk-usdt-transfer", orderStatus: "ready", txHash: steps[1].txHash.toLowerCase() });
    expect(await balance(cliAgent)).toBe(before - AMOUNT_RAW);
    expect((await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } })).payer).toBe(cliAgent);
  });

  describe("onchain-escrow rail", () => {
    const approve = async (amount: bigint) =>
      minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, amount));

    it("escrow-lock holds the stablecoin (idempotent); release after confirm pays the payee, once", async () => {
      const { orderId } = await orderWithIntent("onchain-escrow");
      const before = await state(orderId);
      // No approval yet: the lock would revert, so it is refused before any gas is spent, and nothing changes.
      await approve(0n);
      expectMarketsError(await post(orderId, "/payment/escrow-lock", { payer: agent.address }), 402, "PAYMENT_TX_FAILED");
      expect(await state(orderId)).toEqual(before);

      await approve(AMOUNT_RAW);
      const [payerBefore, payeeBefore] = [await balance(agent.address), await balance(payments.payee.address)];
      const locked = expectOk(await post(orderId, "/payment/escrow-lock", { payer: agent.address })).item;
      expect(locked).toMatchObject({ orderStatus: "ready", payment: { status: "held", payer: agent.address } });
      expect(locked.payment.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(expectOk(await post(orderId, "/payment/escrow-lock", { payer: agent.address })).item.payment.txHash).toBe(locked.payment.txHash);
      expect(await balance(agent.address)).toBe(payerBefore - AMOUNT_RAW);

      expectMarketsError(await post(orderId, "/payment/release"), 409, "ORDER_STATE_INVALID");
      expectOk(await post(orderId, "/execute"));
      expectOk(await post(orderId, "/confirm"));
      expect((await prismaOf(p).marketPayment.findUnique({ where: { orderId } }))!.status).toBe("release_pending");
      const released = expectOk(await post(orderId, "/payment/release")).item;
      expect(released.payment.status).toBe("released");
      expect(released.payment.details.release.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
      const after = await state(orderId);
      expectMarketsError(await post(orderId, "/payment/release"), 409, "ORDER_STATE_INVALID");
      expectMarketsError(await post(orderId, "/payment/refund"), 409, "ORDER_CLOSED");
      expect(await state(orderId)).toEqual(after);
      expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
      expect(await kinds(orderId)).toEqual([
        "market.order.created",
        "market.payment.intent-created",
        "market.payment.escrow-held",
        "market.order.executed",
        "market.order.confirmed",
        "market.payment.released",
      ]);
    });

    it("a signed deposit locks; refund before execution returns it and cancels the order", async () => {
      const { orderId, intent } = await orderWithIntent("onchain-escrow");
      const validBefore = String(Math.floor(Date.now() / 1000) + 600);
      const authorization = { from: agent.address, to: payments.escrow.address, value: AMOUNT_RAW.toString(), validAfter: "0", validBefore, nonce: intent.payment.details.lockNonce };
      const signature = await signAuthorization(agent, domain, authorization, "ReceiveWithAuthorization");
      const before = await balance(agent.address);
      expectOk(await post(orderId, "/payment/escrow-lock", { payer: agent.address, authorization: { validAfter: "0", validBefore, signature } }));
      expect(await balance(agent.address)).toBe(before - AMOUNT_RAW);
      const refunded = expectOk(await post(orderId, "/payment/refund")).item;
      expect(refunded).toMatchObject({ orderStatus: "cancelled", payment: { status: "refunded" } });
      expect(await balance(agent.address)).toBe(before);
      expectMarketsError(await post(orderId, "/payment/refund"), 409, "ORDER_CLOSED");
      expect(await kinds(orderId)).toContain("market.payment.refunded");
    });
  });

  describe("x402 rail", () => {
    async function signedPayload(requirements: any, overrides: Record<string, string> = {}, signer: Wallet = agent) {
      const now = Math.floor(Date.now() / 1000);
      const authorization = {
        from: agent.address,
        to: requirements.payTo,
        value: requirements.maxAmountRequired,
        validAfter: String(now - 60),
        validBefore: String(now + 300),
        nonce: randomNonce(),
        ...overrides,
      };
      const signature = await signAuthorization(signer, { ...domain, name: requirements.extra.name, version: requirements.extra.version }, authorization);
      const payload = { x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } };
      return Buffer.from(JSON.stringify(payload)).toString("base64");
    }

    it("proof commits the authorization; execute settles it, delivers and confirms; confirm is then ORDER_CLOSED", async () => {
      const { orderId, intent } = await orderWithIntent("x402");
      const requirements = intent.payment.details.paymentRequirements;
      const before = await state(orderId);
      const other = new Wallet(payments.agents[1].privateKey);
      expectMarketsError(await post(orderId, "/payment-proof", { paymentSignature: await signedPayload(requirements, {}, other) }), 400, "PAYMENT_AUTHORIZATION_INVALID");
      const expired = await signedPayload(requirements, { validBefore: String(Math.floor(Date.now() / 1000) - 10) });
      expectMarketsError(await post(orderId, "/payment-proof", { paymentSignature: expired }), 400, "PAYMENT_AUTHORIZATION_EXPIRED");
      expectMarketsError(await post(orderId, "/payment-proof", { paymentSignature: "%%%" }), 400, "VALIDATION_ERROR");
      expect(await state(orderId)).toEqual(before);

      const good = await signedPayload(requirements);
      const proved = expectOk(await post(orderId, "/payment-proof", { paymentSignature: good })).item;
      expect(proved).toMatchObject({ orderStatus: "ready", payment: { status: "held", proofMode: "x402", txHash: null } });
      const payeeBefore = await balance(payments.payee.address);
      const executed = expectOk(await post(orderId, "/execute")).item;
      expect(executed.order.status).toBe("confirmed");
      expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
      const payment = (await prismaOf(p).marketPayment.findUnique({ where: { orderId } }))!;
      expect(payment.status).toBe("released");
      expect(payment.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expectMarketsError(await post(orderId, "/confirm"), 409, "ORDER_CLOSED");
      expect(await kinds(orderId)).toEqual([
        "market.order.created",
        "market.payment.intent-created",
        "market.payment.proof-recorded",
        "market.payment.settlement-recorded",
        "market.order.executed",
        "market.order.confirmed",
        "market.payment.released",
      ]);

      // The settled authorization cannot pay a second order.
      const second = await orderWithIntent("x402");
      const secondBefore = await state(second.orderId);
      expectMarketsError(await post(second.orderId, "/payment-proof", { paymentSignature: good }), 409, "PAYMENT_AUTHORIZATION_USED");
      expect(await state(second.orderId)).toEqual(secondBefore);
    });
  });
});

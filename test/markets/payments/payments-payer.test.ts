/**
 * A payer is who pays (docs/markets-payments.md, "Who may pay"): over the real REST shim against the embedded anvil,
 * an agent's pairing cannot have the escrow operator lock a victim's approved allowance, nor claim a victim's transfer
 * as its wallet proof (PAYMENT_PAYER_MISMATCH, 403); each refusal leaves the payment, the order, the audit log and the
 * victim's balance as they were. The agent's own transfer, and a lock of its own allowance, still pay.
 */
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { agentHeaders, api, bindMachine, createOrder, expectMarketsError, expectOk, pairAgent, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD in 6-decimal units

describe("a payer is who pays", () => {
  let p: MarketsPlatform;
  let machine: string;
  let token: string;
  let thief: Wallet;
  let victim: Wallet;
  let provider: JsonRpcProvider;
  let payments: DemoPaymentsFixture;
  let stablecoin: Contract;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    payments = p.demo.payments!;
    provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    thief = new Wallet(payments.agents[0]!.privateKey, provider);
    victim = new Wallet(payments.agents[1]!.privateKey, provider);
    stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    token = (await pairAgent(p, machine, thief)).pairingToken;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    provider?.destroy();
    await p?.close();
  });

  const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const balance = async (address: string) => (await stablecoin.balanceOf(address)) as bigint;
  const send = (from: Wallet) => stablecoin.connect(new NonceManager(from)) as Contract;
  async function orderWithIntent(rail: string): Promise<string> {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail }));
    return order.id;
  }
  async function state(orderId: string) {
    const prisma = prismaOf(p);
    const [payment, order, events] = await Promise.all([
      prisma.marketPayment.findUnique({ where: { orderId } }),
      prisma.marketOrder.findUnique({ where: { id: orderId } }),
      prisma.marketAuditEvent.findMany({ where: { machineId: machine } }),
    ]);
    return { payment, order, events: events.filter((e: any) => (e.data as any)?.orderId === orderId).length };
  }

  it("escrow-lock naming a victim who approved the escrow is refused; the victim keeps its funds", async () => {
    await minedReceipt(await send(victim).approve!(payments.escrow.address, AMOUNT_RAW));
    const orderId = await orderWithIntent("onchain-escrow");
    const before = await state(orderId);
    const victimBefore = await balance(victim.address);
    expectMarketsError(await post(orderId, "/payment/escrow-lock", { payer: victim.address }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await state(orderId)).toEqual(before);
    expect(await balance(victim.address)).toBe(victimBefore);
    // The agent's own allowance locks (the payer defaults to the pairing's agent).
    await minedReceipt(await send(thief).approve!(payments.escrow.address, AMOUNT_RAW));
    const locked = expectOk(await post(orderId, "/payment/escrow-lock", {})).item;
    expect(locked.payment).toMatchObject({ status: "held", payer: thief.address });
  });

  it("a wallet proof cannot claim a victim's transfer, named or not; the agent's own transfer pays", async () => {
    const orderId = await orderWithIntent("wallet");
    const before = await state(orderId);
    const victims = (await minedReceipt(await send(victim).transfer!(payments.payee.address, AMOUNT_RAW))).hash;
    expectMarketsError(await post(orderId, "/payment-proof", { txHash: victims, from: victim.address }), 403, "PAYMENT_PAYER_MISMATCH");
    // Without `from` the payer is the agent, and the victim's transfer is not the agent's.
    expectMarketsError(await post(orderId, "/payment-proof", { txHash: victims }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expect(await state(orderId)).toEqual(before);
    const own = (await minedReceipt(await send(thief).transfer!(payments.payee.address, AMOUNT_RAW))).hash;
    const paid = expectOk(await post(orderId, "/payment-proof", { txHash: own })).item;
    expect(paid.payment).toMatchObject({ status: "held", payer: thief.address, txHash: own.toLowerCase() });
  });
});

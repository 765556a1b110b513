/**
 * The platform's own transactions pay no stream order (docs/stream-marketplace.md): over the real REST shim against the
 * embedded anvil, an escrowed market order is locked, executed, confirmed and released; the release transaction moves
 * the stablecoin from the escrow to the payee, enough for a stream order's price, yet as that order's payment it is
 * PAYMENT_TRANSFER_NOT_FOUND and the order stays as it was. A buyer's own transfer still pays.
 */
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { agentHeaders, createOrder, providerMachineWithAgent } from "../../markets/helpers.js";
import {
  api,
  createStreamOrder,
  expectMarketsError,
  expectOk,
  newBuyer,
  orderSeller,
  orderState,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  seedListing,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
} from "./orders-helpers.js";

const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD in 6-decimal units

describe("the platform's own transactions pay no stream order", () => {
  let p: MarketsPlatform;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    provider?.destroy();
    await p?.close();
  });

  it("an escrow release transaction is refused as a stream payment; the order stays payment_pending", async () => {
    const payments = p.demo.payments!;
    const agent = new Wallet(payments.agents[0]!.privateKey, provider);
    const { machine, token } = await providerMachineWithAgent(p, agent);
    const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail: "onchain-escrow" }));
    const stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), new NonceManager(agent));
    await minedReceipt(await stablecoin.approve!(payments.escrow.address, AMOUNT_RAW));
    expectOk(await post(order.id, "/payment/escrow-lock", {}));
    expectOk(await post(order.id, "/execute"));
    expectOk(await post(order.id, "/confirm"));
    expect(expectOk(await post(order.id, "/payment/release")).item.payment.status).toBe("released");
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } });
    const releaseTx = (payment.details as any).release.txHash as string;
    expect(releaseTx).toMatch(/^0x[0-9a-f]{64}$/);

    const listing = await seedListing(p, await orderSeller(p, 1), { count: 1, amount: "0.01" });
    const buyer = newBuyer();
    const streamOrder = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const before = await orderState(p, streamOrder.id);
    expectMarketsError(await payStreamOrder(p, streamOrder.id, { paymentReference: releaseTx }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expectMarketsError(await payStreamOrder(p, streamOrder.id, { paymentReference: "tx", proof: { chainId: String(p.demo.chainId), txHash: releaseTx } }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expect(await orderState(p, streamOrder.id)).toEqual(before);
    expect(expectOk(await payStreamOrder(p, streamOrder.id, { paymentReference: await transferToPayee(p, "0.01") })).item.status).toBe("paid");
  });
});


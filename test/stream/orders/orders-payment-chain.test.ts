/**
 * Stream order payment with an on-chain proof (order flow; docs/stream-marketplace.md) against the platform's
 * embedded anvil chain and its TestStablecoin: a real transfer to the configured payee of at least the price is
 * accepted and recorded; a wrong payee, a short amount, another token, a reverted or unknown transaction and a
 * transaction that already paid are refused with the market payment codes (subgraphs/markets/payments/errors.ts),
 * leaving the order, its sessions and audit events unchanged. By default a reference that is not a
 * qualifying transfer's hash is refused (STREAM_PAYMENT_PROOF_REQUIRED); =false (development) records it as given.
 */
import { Contract, NonceManager, parseUnits, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt, polledReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import {
  createStreamOrder,
  expectMarketsError,
  expectOk,
  newBuyer,
  orderSeller,
  orderState,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  seedListing,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type SeededListing,
} from "./orders-helpers.js";

const PRICE = "0.75";
const PRICE_RAW = parseUnits(PRICE, 6);

/**
 * One default platform for both describes (each binds its own demo machines and seeds its own listings); the
 * development switch's platform differs in configuration, so it starts its own.
 */
let shared: MarketsPlatform;
beforeAll(async () => {
  shared = await startMarketsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => shared?.close());

describe("stream order payment proven on chain", () => {
  let p: MarketsPlatform;
  let listing: SeededListing;
  let provider: JsonRpcProvider;
  let payments: DemoPaymentsFixture;
  let payer: NonceManager;
  let stablecoin: Contract;

  beforeAll(async () => {
    p = shared;
    payments = p.demo.payments!;
    provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    payer = new NonceManager(new Wallet(payments.agents[0].privateKey, provider));
    stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
    const seller = await orderSeller(p, 0);
    listing = await seedListing(p, seller, { count: 2, amount: PRICE, currency: "USD" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => {
    provider?.destroy();
  });

  const transfer = async (to: string, amount: bigint) => (await minedReceipt(await (stablecoin.connect(payer) as Contract).transfer(to, amount))).hash;
  const newOrder = async () => {
    const buyer = newBuyer();
    return expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: payments.agents[0].address }), 201).item;
  };
  const proof = (txHash: string, chainId: unknown = String(p.demo.chainId)) => ({ chainId, txHash });

  it("a transfer of at least the price to the payee pays the order; the checked transfer is recorded", async () => {
    const order = await newOrder();
    const txHash = await transfer(payments.payee.address, PRICE_RAW + 1n);
    const paid = expectOk(await payStreamOrder(p, order.id, { paymentReference: "tx", proof: proof(txHash.toUpperCase().replace("0X", "0x"), p.demo.chainId) })).item;
    expect(paid.status).toBe("paid");
    expect(paid.paymentProof).toMatchObject({
      chainId: String(p.demo.chainId),
      txHash: txHash.toLowerCase(),
      token: payments.stablecoin.address,
      from: await payer.getAddress(),
      to: payments.payee.address,
      amountRaw: (PRICE_RAW + 1n).toString(),
    });
    const state = await orderState(p, order.id);
    expect([state.order!.paymentTxHash, state.sessions.map((s) => s.status)]).toEqual([txHash.toLowerCase(), ["requested"]]);

    // The same transaction cannot pay a second order.
    const second = await newOrder();
    const before = await orderState(p, second.id);
    expectMarketsError(await payStreamOrder(p, second.id, { paymentReference: "tx", proof: proof(txHash) }), 409, "PAYMENT_TX_ALREADY_USED");
    expect(await orderState(p, second.id)).toEqual(before);
  });

  it("wrong payee, short amount, a native-coin transfer, reverted, unknown and unreadable transactions are refused and change nothing", async () => {
    const order = await newOrder();
    const before = await orderState(p, order.id);
    const wrongPayee = await transfer(payments.agents[1]!.address, PRICE_RAW);
    const short = await transfer(payments.payee.address, PRICE_RAW - 1n);
    const poor = new Wallet(Wallet.createRandom().privateKey, provider);
    const fund = await (await payer.sendTransaction({ to: poor.address, value: parseUnits("1", 18) })).wait();
    expect(fund?.status).toBe(1);
    const reverted = await (stablecoin.connect(poor) as Contract).transfer(payments.payee.address, PRICE_RAW, { gasLimit: 100_000 });
    expect((await polledReceipt(reverted)).status).toBe(0);
    const native = (await (await payer.sendTransaction({ to: payments.payee.address, value: PRICE_RAW })).wait())!.hash;

    const cases: Array<[unknown, number, string]> = [
      [proof(wrongPayee), 400, "PAYMENT_TRANSFER_NOT_FOUND"],
      [proof(short), 400, "PAYMENT_TRANSFER_NOT_FOUND"],
      [proof(native), 400, "PAYMENT_TRANSFER_NOT_FOUND"],
      [proof(reverted.hash), 402, "PAYMENT_TX_FAILED"],
      [proof(`0x${"ab".repeat(32)}`), 409, "PAYMENT_NOT_MINED"],
      [proof(short, "1"), 400, "PAYMENT_RPC_REQUIRED"],
      [proof(short, "0"), 400, "VALIDATION_ERROR"],
      [proof("0x1234"), 400, "VALIDATION_ERROR"],
      [{ txHash: short }, 400, "VALIDATION_ERROR"],
    ];
    for (const [given, status, code] of cases) expectMarketsError(await payStreamOrder(p, order.id, { paymentReference: "tx", proof: given }), status, code);
    expect(await orderState(p, order.id)).toEqual(before);
  });

  it("concurrent payments: one transaction pays one of two orders; one order is paid once, with one delivery session", async () => {
    const [a, b] = [await newOrder(), await newOrder()];
    const txHash = await transfer(payments.payee.address, PRICE_RAW);
    const answers = await Promise.all([a, b].map((o) => payStreamOrder(p, o.id, { paymentReference: "race", proof: proof(txHash) })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.status === 409)!.json().error.code).toBe("PAYMENT_TX_ALREADY_USED");
    const states = await Promise.all([a, b].map((o) => orderState(p, o.id)));
    expect(states.map((st) => st.order!.status).sort()).toEqual(["paid", "payment_pending"]);
    expect(states.map((st) => st.sessions.length).sort()).toEqual([0, 1]);

    const c = await newOrder();
    const hashes = [await transfer(payments.payee.address, PRICE_RAW), await transfer(payments.payee.address, PRICE_RAW)];
    const twice = await Promise.all(hashes.map((ref) => payStreamOrder(p, c.id, { paymentReference: ref })));
    expect(twice.map((r) => r.status).sort()).toEqual([200, 409]);
    const paid = await orderState(p, c.id);
    expect([paid.order!.status, paid.sessions.length, paid.events.filter((k) => k === "stream.order.paid").length]).toEqual(["paid", 1, 1]);
  });

  it("a listing priced in a currency the stablecoin does not carry cannot be proven", async () => {
    const seller = await orderSeller(p, 1);
    const eur = await seedListing(p, seller, { count: 1, amount: "1", currency: "EUR" });
    const buyer = newBuyer();
    const order = expectOk(await createStreamOrder(p, { listingId: eur.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const txHash = await transfer(payments.payee.address, parseUnits("1", 6));
    expectMarketsError(await payStreamOrder(p, order.id, { paymentReference: "tx", proof: proof(txHash) }), 400, "VALIDATION_ERROR");
    expect((await orderState(p, order.id)).order!.status).toBe("payment_pending");
  });
});

describe("secure default and the development switch", () => {
  let p: MarketsPlatform;
  let dev: MarketsPlatform;
  const listings = new Map<MarketsPlatform, SeededListing>();

  beforeAll(async () => {
    p = shared;
    dev = await startMarketsPlatform({ STREAM_PAYMENT_PROOF_REQUIRED: "false" });
    for (const platform of [p, dev]) listings.set(platform, await seedListing(platform, await orderSeller(platform, 2), { count: 1, amount: PRICE }));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await dev?.close();
  });

  const order = async (platform: MarketsPlatform) => {
    const listing = listings.get(platform)!;
    const buyer = newBuyer();
    return expectOk(await createStreamOrder(platform, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
  };

  it("by default a reference that is no transfer is refused and the order stays payment_pending; a transfer's hash or a proof pays", async () => {
    const first = await order(p);
    const before = await orderState(p, first.id);
    for (const reference of ["i-promise-i-paid", "0x1234", `0x${"ab".repeat(31)}`]) {
      expectMarketsError(await payStreamOrder(p, first.id, { paymentReference: reference }), 400, "STREAM_PAYMENT_PROOF_REQUIRED");
    }
    // A hash-shaped reference is checked on chain like a proof: an unknown transaction is not a payment.
    expectMarketsError(await payStreamOrder(p, first.id, { paymentReference: `0x${"ab".repeat(32)}` }), 409, "PAYMENT_NOT_MINED");
    expect(await orderState(p, first.id)).toEqual(before);
    expect(before.order!.status).toBe("payment_pending");
    const byReference = expectOk(await payStreamOrder(p, first.id, { paymentReference: await transferToPayee(p, PRICE) })).item;
    expect([byReference.status, byReference.paymentProof.amountRaw]).toEqual(["paid", PRICE_RAW.toString()]);
    const second = await order(p);
    const txHash = await transferToPayee(p, PRICE);
    const byProof = expectOk(await payStreamOrder(p, second.id, { paymentReference: "tx", proof: { chainId: String(p.demo.chainId), txHash } })).item;
    expect([byProof.status, byProof.paymentProof.txHash]).toEqual(["paid", txHash.toLowerCase()]);
  });

  it("STREAM_PAYMENT_PROOF_REQUIRED=false (development) records a self-reported reference as given", async () => {
    const pending = await order(dev);
    const paid = expectOk(await payStreamOrder(dev, pending.id, { paymentReference: "i-promise-i-paid" })).item;
    expect(paid).toMatchObject({ status: "paid", paymentReference: "i-promise-i-paid", paymentProof: null });
    // Without a payer (allowed only here) a reference is all that can pay: a transfer's hash is STREAM_PAYER_REQUIRED.
    const listing = listings.get(dev)!;
    const buyer = newBuyer();
    const unbound = expectOk(await createStreamOrder(dev, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: null }), 201).item;
    expect(unbound.payerAddress).toBeNull();
    const before = await orderState(dev, unbound.id);
    expectMarketsError(await payStreamOrder(dev, unbound.id, { paymentReference: await transferToPayee(dev, PRICE) }), 400, "STREAM_PAYER_REQUIRED");
    expect(await orderState(dev, unbound.id)).toEqual(before);
  });
});

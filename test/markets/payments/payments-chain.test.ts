/**
 * The chain side of the payment rails against the real embedded anvil with our contracts (subgraphs/markets/orders/payments):
 * the wallet rail's transfer check and each of its codes, the escrow's lock/release/refund as real transactions
 * (idempotent lock, no second release or refund), and x402 verification and settlement of EIP-3009 authorizations.
 */
import { Contract, NonceManager, parseUnits, Wallet, ZeroHash, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt, polledReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { ChainReader } from "../../../subgraphs/shared/chain/reader.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { loadPaymentsConfig } from "../../../subgraphs/shared/config/payments.js";
import { DomainError } from "../../../subgraphs/shared/errors.js";
import { randomNonce, signAuthorization, type TokenDomain } from "../../../subgraphs/markets/orders/payments/eip3009.js";
import { escrowOrderKey } from "../../../subgraphs/markets/orders/payments/escrow.js";
import { PaymentChain } from "../../../subgraphs/markets/orders/payments/index.js";
import { paymentRpc, PaymentRpcs } from "../../../subgraphs/markets/orders/payments/rpc.js";
import { checkErc20Transfer } from "../../../subgraphs/markets/orders/payments/transfer.check.js";
import {
  buildRequirements,
  parsePaymentPayload,
  settlePayment,
  verifyPayment,
  type PaymentPayload,
  type PaymentRequirements,
} from "../../../subgraphs/markets/orders/payments/x402.js";
import { freePort } from "../../support/processes.js";
import { removeDir, startSeededChain, tempDataDir, type SeededChain } from "../../chain/helpers.js";

let seeded: SeededChain;
let dataDir: string;
let provider: JsonRpcProvider;
let payments: DemoPaymentsFixture;
let chain: PaymentChain;
let token: Contract;
let agent: Wallet;
let other: Wallet;
let payee: string;
let domain: TokenDomain;

const AMOUNT = parseUnits("1.5", 6);

beforeAll(async () => {
  dataDir = tempDataDir();
  seeded = await startSeededChain(dataDir);
  provider = createProvider(seeded.chain.rpcUrl, { chainId: seeded.chain.chainId, timeoutMs: 10_000 });
  payments = seeded.chain.demo!.payments!;
  chain = new PaymentChain({
    chainId: seeded.chain.chainId,
    reader: seeded.reader,
    addresses: seeded.chain.addresses,
    chain: seeded.config.chain,
    payments: seeded.config.payments,
  });
  agent = new Wallet(payments.agents[0].privateKey, provider);
  other = new Wallet(payments.agents[1].privateKey, provider);
  payee = payments.payee.address;
  token = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
  domain = await chain.tokenDomain();
});

afterAll(async () => {
  chain?.close();
  provider?.destroy();
  await seeded?.close();
  removeDir(dataDir);
});

/** Expects the promise to reject with the DomainError `code`. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
}

async function transfer(from: Wallet, to: string, amount: bigint): Promise<string> {
  const signer = new NonceManager(from);
  const sent = await (token.connect(signer) as Contract).transfer(to, amount);
  return (await minedReceipt(sent)).hash;
}

const balance = async (address: string) => (await token.balanceOf(address)) as bigint;

describe("demo set-up", () => {
  it("deploys the 6-decimal stablecoin and escrow, funds the agents and allows the escrow operator", async () => {
    expect(payments.stablecoin).toMatchObject({ name: "Test USD", version: "2", symbol: "TUSD", decimals: 6 });
    expect(Number(await token.decimals())).toBe(6);
    for (const a of payments.agents) {
      expect(await balance(a.address)).toBeGreaterThan(parseUnits("1000", 6));
      expect(await provider.getBalance(a.address)).toBeGreaterThan(0n);
    }
    const escrow = new Contract(payments.escrow.address, contractInterface("PaymentEscrow"), provider);
    expect(payments.escrow.operatorAddress).toBe(chain.operator().address);
    expect(await escrow.isOperator(payments.escrow.operatorAddress)).toBe(true);
    expect(await escrow.token()).toBe(payments.stablecoin.address);
  });
});

describe("wallet rail: ERC-20 transfer check (rpc mode)", () => {
  const claim = (txHash: string, overrides: Partial<Parameters<typeof checkErc20Transfer>[1]> = {}) => ({
    txHash,
    token: payments.stablecoin.address,
    from: agent.address,
    to: payee,
    amountRaw: AMOUNT,
    ...overrides,
  });

  it("accepts the transaction that moved exactly this amount of this token from the payer to the payee", async () => {
    const hash = await transfer(agent, payee, AMOUNT);
    const checked = await checkErc20Transfer(chain.home(), claim(hash));
    expect(checked.txHash).toBe(hash.toLowerCase());
    expect(checked.blockNumber).toBeGreaterThan(0);
  });

  it("a transfer of another token, amount, recipient or sender is PAYMENT_TRANSFER_NOT_FOUND", async () => {
    const hash = await transfer(agent, payee, AMOUNT);
    await rejectsWith(checkErc20Transfer(chain.home(), claim(hash, { token: payments.escrow.address })), "PAYMENT_TRANSFER_NOT_FOUND");
    await rejectsWith(checkErc20Transfer(chain.home(), claim(hash, { amountRaw: AMOUNT + 1n })), "PAYMENT_TRANSFER_NOT_FOUND");
    await rejectsWith(checkErc20Transfer(chain.home(), claim(hash, { to: other.address })), "PAYMENT_TRANSFER_NOT_FOUND");
    await rejectsWith(checkErc20Transfer(chain.home(), claim(hash, { from: other.address })), "PAYMENT_TRANSFER_NOT_FOUND");
  });

  it("a transaction with no Transfer at all (an approval) is PAYMENT_TRANSFER_NOT_FOUND", async () => {
    const sent = await (token.connect(new NonceManager(agent)) as Contract).approve(payee, AMOUNT);
    const hash = (await minedReceipt(sent)).hash;
    await rejectsWith(checkErc20Transfer(chain.home(), claim(hash)), "PAYMENT_TRANSFER_NOT_FOUND");
  });

  it("a reverted transaction is PAYMENT_TX_FAILED", async () => {
    const poor = Wallet.createRandom().connect(provider);
    await provider.send("anvil_setBalance", [poor.address, "0xDE0B6B3A7640000"]);
    // A fixed gas limit skips estimation, so the transfer of tokens it does not have is mined and reverts.
    const sent = await (token.connect(poor) as Contract).transfer(payee, AMOUNT, { gasLimit: 100_000 });
    expect((await polledReceipt(sent)).status).toBe(0);
    await rejectsWith(checkErc20Transfer(chain.home(), claim(sent.hash, { from: poor.address })), "PAYMENT_TX_FAILED");
  });

  it("a transaction not mined yet, or unknown, is PAYMENT_NOT_MINED; once mined it is accepted", async () => {
    await rejectsWith(checkErc20Transfer(chain.home(), claim(`0x${"ab".repeat(32)}`)), "PAYMENT_NOT_MINED");
    await provider.send("evm_setAutomine", [false]);
    let hash: string;
    try {
      const sent = await (token.connect(new NonceManager(agent)) as Contract).transfer(payee, AMOUNT);
      hash = sent.hash;
      await rejectsWith(checkErc20Transfer(chain.home(), claim(hash)), "PAYMENT_NOT_MINED");
    } finally {
      await provider.send("evm_setAutomine", [true]);
      await provider.send("evm_mine", []);
    }
    await expect(checkErc20Transfer(chain.home(), claim(hash))).resolves.toMatchObject({ txHash: hash.toLowerCase() });
  });

  it("a node that is down is PAYMENT_RPC_ERROR; a chain with no RPC configured is PAYMENT_RPC_REQUIRED", async () => {
    const closed = await freePort();
    const dead = new ChainReader({ rpcUrl: `http://127.0.0.1:${closed}`, addresses: {}, chainId: 3338, requestTimeoutMs: 2000, pollIntervalMs: 60_000 });
    try {
      await rejectsWith(checkErc20Transfer(paymentRpc(dead), claim(`0x${"cd".repeat(32)}`)), "PAYMENT_RPC_ERROR");
    } finally {
      dead.close();
    }
    const rpcs = new PaymentRpcs({ chainId: 3338, reader: seeded.reader }, seeded.config.chain, { rpcUrls: { "31337": seeded.chain.rpcUrl } });
    try {
      expect(() => rpcs.forChain(1)).toThrow(expect.objectContaining({ code: "PAYMENT_RPC_REQUIRED" }));
      // A configured second chain is read through its own reader (here: the same node under another ID).
      const hash = await transfer(agent, payee, AMOUNT);
      await expect(checkErc20Transfer(rpcs.forChain(31337), claim(hash))).resolves.toMatchObject({ txHash: hash.toLowerCase() });
    } finally {
      rpcs.close();
    }
  });

  it("PAYMENT_RPC_URLS is parsed into chain IDs; malformed entries refuse to start", () => {
    expect(loadPaymentsConfig({ PAYMENT_RPC_URLS: "1=https://eth.example, 8453=http://127.0.0.1:9" }, 3338).rpcUrls).toEqual({
      "1": "https://eth.example",
      "8453": "http://127.0.0.1:9",
    });
    expect(() => loadPaymentsConfig({ PAYMENT_RPC_URLS: "mainnet=https://eth.example" }, 3338)).toThrow(/PAYMENT_RPC_URLS/);
  });

  it("malformed claims are VALIDATION_ERROR before any request", async () => {
    await rejectsWith(checkErc20Transfer(chain.home(), claim("0x1234")), "VALIDATION_ERROR");
    await rejectsWith(checkErc20Transfer(chain.home(), claim(ZeroHash, { to: "0xnot" })), "VALIDATION_ERROR");
    await rejectsWith(checkErc20Transfer(chain.home(), claim(ZeroHash, { amountRaw: 0n })), "VALIDATION_ERROR");
  });
});

describe("onchain-escrow rail: lock, release, refund as real transactions", () => {
  let serial = 0;
  const orderId = () => `escrow-order-${++serial}-${Date.now()}`;
  const escrowContract = () => new Contract(payments.escrow.address, contractInterface("PaymentEscrow"), provider);

  async function approve(from: Wallet, amount: bigint): Promise<void> {
    await minedReceipt(await (token.connect(new NonceManager(from)) as Contract).approve(payments.escrow.address, amount));
  }

  it("locks the payer's approved amount, is idempotent, and releases once to the payee", async () => {
    const id = orderId();
    await approve(agent, AMOUNT);
    const [payerBefore, payeeBefore] = [await balance(agent.address), await balance(payee)];
    const locked = await chain.escrow().lock({ orderId: id, payer: agent.address, payee, amountRaw: AMOUNT });
    expect(locked.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(locked.escrow).toMatchObject({ orderKey: escrowOrderKey(id), payer: agent.address, payee, amountRaw: AMOUNT, state: "locked" });
    expect(await balance(agent.address)).toBe(payerBefore - AMOUNT);
    expect(await balance(payments.escrow.address)).toBeGreaterThanOrEqual(AMOUNT);

    // The same lock again sends nothing; other terms for the order are refused.
    const again = await chain.escrow().lock({ orderId: id, payer: agent.address, payee, amountRaw: AMOUNT });
    expect(again.txHash).toBeNull();
    await rejectsWith(chain.escrow().lock({ orderId: id, payer: agent.address, payee, amountRaw: AMOUNT + 1n }), "PAYMENT_ESCROW_MISMATCH");
    expect(await balance(agent.address)).toBe(payerBefore - AMOUNT);

    const released = await chain.escrow().release(id);
    expect(released.escrow.state).toBe("released");
    expect(await balance(payee)).toBe(payeeBefore + AMOUNT);

    // No second release, and no refund after the release: the module refuses, and so does the contract itself.
    await rejectsWith(chain.escrow().release(id), "PAYMENT_ESCROW_NOT_LOCKED");
    await rejectsWith(chain.escrow().refund(id), "PAYMENT_ESCROW_NOT_LOCKED");
    const operator = new Wallet(seeded.config.payments.escrowOperatorKey!, provider);
    await expect((escrowContract().connect(operator) as Contract).release.staticCall(escrowOrderKey(id))).rejects.toMatchObject({
      revert: { name: "NotLocked" },
    });
    expect(await balance(payee)).toBe(payeeBefore + AMOUNT);
  });

  it("refunds a locked escrow to the payer, once", async () => {
    const id = orderId();
    await approve(other, AMOUNT);
    const before = await balance(other.address);
    await chain.escrow().lock({ orderId: id, payer: other.address, payee, amountRaw: AMOUNT });
    expect(await balance(other.address)).toBe(before - AMOUNT);
    const refunded = await chain.escrow().refund(id);
    expect(refunded.escrow.state).toBe("refunded");
    expect(await balance(other.address)).toBe(before);
    await rejectsWith(chain.escrow().refund(id), "PAYMENT_ESCROW_NOT_LOCKED");
    expect(await balance(other.address)).toBe(before);
  });

  it("locks with the payer's signed ReceiveWithAuthorization bound to the order and payee", async () => {
    const id = orderId();
    const now = (await provider.getBlock("latest"))!.timestamp;
    const nonce = await chain.escrow().lockNonce(id, payee);
    const authorization = { from: agent.address, to: payments.escrow.address, value: AMOUNT.toString(), validAfter: "0", validBefore: String(now + 600), nonce };
    const signature = await signAuthorization(agent, domain, authorization, "ReceiveWithAuthorization");
    const before = await balance(agent.address);
    const lock = { orderId: id, payer: agent.address, payee, amountRaw: AMOUNT };

    // The same signature for another payee does not verify on chain: nothing moves.
    await rejectsWith(
      chain.escrow().lock({ ...lock, payee: other.address, authorization: { validAfter: "0", validBefore: authorization.validBefore, signature } }),
      "PAYMENT_TX_FAILED",
    );
    expect(await chain.operator().lastRevert).toBe("InvalidSignature()");
    expect((await chain.escrow().read(id)).state).toBe("none");
    expect(await balance(agent.address)).toBe(before);

    const locked = await chain.escrow().lock({ ...lock, authorization: { validAfter: "0", validBefore: authorization.validBefore, signature } });
    expect(locked.escrow.state).toBe("locked");
    expect(await balance(agent.address)).toBe(before - AMOUNT);
    expect(await token.authorizationState(agent.address, nonce)).toBe(true);
  });

  it("a lock the payer did not approve is PAYMENT_TX_FAILED and leaves no escrow; only operators release", async () => {
    const id = orderId();
    await approve(agent, 0n);
    await rejectsWith(chain.escrow().lock({ orderId: id, payer: agent.address, payee, amountRaw: AMOUNT }), "PAYMENT_TX_FAILED");
    expect(chain.operator().lastRevert).toMatch(/^InsufficientAllowance/);
    expect((await chain.escrow().read(id)).state).toBe("none");

    const locked = orderId();
    await approve(agent, AMOUNT);
    await chain.escrow().lock({ orderId: locked, payer: agent.address, payee, amountRaw: AMOUNT });
    await expect((escrowContract().connect(agent) as Contract).release.staticCall(escrowOrderKey(locked))).rejects.toMatchObject({
      revert: { name: "NotOperator" },
    });
    expect((await chain.escrow().read(locked)).state).toBe("locked");
  });
});

describe("x402 rail: signed EIP-3009 authorizations", () => {
  let requirements: PaymentRequirements;
  let now: number;

  beforeAll(async () => {
    requirements = buildRequirements({
      network: chain.x402Network,
      token: domain,
      payTo: payee,
      amountRaw: AMOUNT,
      resource: "http://127.0.0.1/api/v1/market/orders/o-1/execute",
      description: "market order o-1",
      maxTimeoutSeconds: chain.x402MaxTimeoutSeconds,
    });
  });

  async function signed(from: Wallet, overrides: Partial<PaymentPayload["payload"]["authorization"]> = {}, signer = from): Promise<PaymentPayload> {
    now = (await provider.getBlock("latest"))!.timestamp;
    const authorization = {
      from: from.address,
      to: payee,
      value: AMOUNT.toString(),
      validAfter: String(now - 60),
      validBefore: String(now + 300),
      nonce: randomNonce(),
      ...overrides,
    };
    const signature = await signAuthorization(signer, domain, authorization);
    return { x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } };
  }

  const ctx = () => ({ rpc: chain.home(), chainId: chain.chainId, now, sender: chain.operator() });

  it("requirements are v1 `exact` on the local chain's network, naming the token's EIP-712 domain", () => {
    expect(requirements).toEqual({
      scheme: "exact",
      network: "peaq",
      maxAmountRequired: "1500000",
      resource: "http://127.0.0.1/api/v1/market/orders/o-1/execute",
      description: "market order o-1",
      mimeType: "application/json",
      payTo: payee,
      maxTimeoutSeconds: 300,
      asset: payments.stablecoin.address,
      extra: { name: "Test USD", version: "2" },
    });
  });

  it("a good authorization verifies and settles: the payee is paid and the nonce is used; replaying it is refused", async () => {
    const payload = parsePaymentPayload(Buffer.from(JSON.stringify(await signed(agent))).toString("base64"));
    await expect(verifyPayment(ctx(), payload, requirements)).resolves.toEqual({ payer: agent.address });
    const before = await balance(payee);
    const settled = await settlePayment(ctx(), payload, requirements);
    expect(settled.payer).toBe(agent.address);
    expect(await balance(payee)).toBe(before + AMOUNT);
    expect(await token.authorizationState(agent.address, payload.payload.authorization.nonce)).toBe(true);

    await rejectsWith(verifyPayment(ctx(), payload, requirements), "PAYMENT_AUTHORIZATION_USED");
    await rejectsWith(settlePayment(ctx(), payload, requirements), "PAYMENT_AUTHORIZATION_USED");
    expect(await balance(payee)).toBe(before + AMOUNT);
  });

  it("a signature by another key, a changed field, or another payee or amount is PAYMENT_AUTHORIZATION_INVALID", async () => {
    const before = await balance(payee);
    await rejectsWith(verifyPayment(ctx(), await signed(agent, {}, other), requirements), "PAYMENT_AUTHORIZATION_INVALID");
    const tampered = await signed(agent);
    tampered.payload.authorization.value = (AMOUNT * 2n).toString();
    await rejectsWith(verifyPayment(ctx(), tampered, requirements), "PAYMENT_AUTHORIZATION_INVALID");
    await rejectsWith(settlePayment(ctx(), tampered, requirements), "PAYMENT_AUTHORIZATION_INVALID");
    await rejectsWith(verifyPayment(ctx(), await signed(agent, { to: other.address }), requirements), "PAYMENT_AUTHORIZATION_INVALID");
    await rejectsWith(verifyPayment(ctx(), await signed(agent, { value: "1" }), requirements), "PAYMENT_AUTHORIZATION_INVALID");
    const otherNetwork = await signed(agent);
    await rejectsWith(verifyPayment(ctx(), { ...otherNetwork, network: "base" }, requirements), "PAYMENT_AUTHORIZATION_INVALID");
    // Signed for another token domain (name) than the requirements name.
    await rejectsWith(
      verifyPayment(ctx(), await signed(agent), { ...requirements, extra: { name: "USD Coin", version: "2" } }),
      "PAYMENT_AUTHORIZATION_INVALID",
    );
    expect(await balance(payee)).toBe(before);
  });

  it("an expired or not yet valid authorization is PAYMENT_AUTHORIZATION_EXPIRED", async () => {
    const expired = await signed(agent, { validBefore: String((await provider.getBlock("latest"))!.timestamp - 1) });
    await rejectsWith(verifyPayment(ctx(), expired, requirements), "PAYMENT_AUTHORIZATION_EXPIRED");
    // Inside the settlement margin: too late to settle safely.
    const closing = await signed(agent, { validBefore: String((await provider.getBlock("latest"))!.timestamp + 3) });
    await rejectsWith(verifyPayment(ctx(), closing, requirements), "PAYMENT_AUTHORIZATION_EXPIRED");
    const early = await signed(agent, { validAfter: String((await provider.getBlock("latest"))!.timestamp + 120) });
    await rejectsWith(settlePayment(ctx(), early, requirements), "PAYMENT_AUTHORIZATION_EXPIRED");
    expect(await token.authorizationState(agent.address, early.payload.authorization.nonce)).toBe(false);
  });

  it("a payer without the balance is PAYMENT_INSUFFICIENT_FUNDS; malformed payloads are VALIDATION_ERROR", async () => {
    const empty = Wallet.createRandom();
    await rejectsWith(verifyPayment(ctx(), await signed(empty as unknown as Wallet), requirements), "PAYMENT_INSUFFICIENT_FUNDS");
    for (const bad of ["not base64 json", Buffer.from('{"x402Version":2}').toString("base64"), { x402Version: 1, scheme: "exact" }]) {
      expect(() => parsePaymentPayload(bad)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    }
  });
});

/**
 * The chain side of the payment rails against the real embedded anvil with our contracts (subgraphs/markets/payments):
 * the wallet rail's transfer check and each of its codes, the escrow's lock/release/refund as real transactions
 * (idempotent lock, no second release or refund), and x402 verification and settlement of EIP-3009 authorizations.
 */
import { Contract, NonceManager, parseUnits, Wallet, ZeroHash, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt, polledReceipt } from "../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../subgraphs/shared/chain/payments-setup.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { loadPaymentsConfig } from "../../subgraphs/shared/config/payments.js";
import { DomainError } from "../../subgraphs/shared/errors.js";
import { randomNonce, signAuthorization, type TokenDomain } from "../../subgraphs/markets/payments/eip3009.js";
import { escrowOrderKey } from "../../subgraphs/markets/payments/escrow.js";
import { PaymentChain } from "../../subgraphs/markets/payments/index.js";
import { paymentRpc, PaymentRpcs } from "../../subgraphs/markets/payments/rpc.js";
import { checkErc20Transfer } from "../../subgraphs/markets/payments/transfer-check.js";
import {
  buildRequirements,
  parsePaymentPayload,
  settlePayment,
  verifyPayment,
  type PaymentPayload,
  type PaymentRequirements,
} from "../../subgraphs/markets/payments/x402.js";
import { freePort } from "../support/processes.js";
import { removeDir, startSeededChain, tempDataDir, type SeededChain } from "../chain/helpers.js";

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

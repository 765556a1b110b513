/**
 * Document 3 payments: wallet-rail proof checks per second (checkErc20Transfer: receipt + Transfer log match through
 * the platform's ChainReader) beside a bare `eth_getTransactionReceipt` through the same reader, in the same run,
 * against the embedded anvil with our contracts. Both run the same hashes at the same concurrency; rounds alternate
 * so machine noise hits both alike. The check adds the log decoding and matching to one RPC round trip, so the ratio
 * says what the check costs beyond the node.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Contract, NonceManager, Wallet } from "ethers";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { openPlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { paymentRpc } from "../../subgraphs/markets/orders/payments/rpc.js";
import { checkErc20Transfer } from "../../subgraphs/markets/orders/payments/transfer.check.js";
import { summarize, type Sample } from "./stats.js";

const TRANSFERS = Number(process.env.BENCH_PAYMENT_TRANSFERS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_PAYMENT_CONCURRENCY ?? 16);
const CALLS_PER_ROUND = Number(process.env.BENCH_PAYMENT_CALLS ?? 4000);

/** Runs `calls` operations over `concurrency` workers; throughput and latency percentiles in ms. */
async function measure(calls: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < calls; i = next++) {
        const t = performance.now();
        await op(i).catch(() => failures++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2));
  return { rps: calls / seconds, p50: at(0.5), p99: at(0.99), non2xx: failures };
}

export async function benchPaymentProofs(rounds: number): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-payments-"));
  const config = loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0" });
  const chain = await openPlatformChain(config);
  const reader = new ChainReader({
    rpcUrl: chain.rpcUrl,
    addresses: chain.addresses,
    chainId: chain.chainId,
    requestTimeoutMs: config.chain.requestTimeoutMs,
    pollIntervalMs: config.chain.pollIntervalMs,
    maxInFlight: config.chain.maxInFlight,
  });
  const provider = createProvider(chain.rpcUrl, { chainId: chain.chainId, timeoutMs: 10_000 });
  try {
    const payments = chain.demo!.payments!;
    const agent = new NonceManager(new Wallet(payments.agents[0].privateKey, provider));
    const token = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), agent);
    const hashes: string[] = [];
    for (let i = 0; i < TRANSFERS; i++) hashes.push((await minedReceipt(await token.transfer(payments.payee.address, 10_000n + BigInt(i)))).hash);
    const rpc = paymentRpc(reader);
    const bare: Sample[] = [];
    const checks: Sample[] = [];
    for (let round = 0; round < rounds; round++) {
      bare.push(await measure(CALLS_PER_ROUND, CONCURRENCY, (i) => reader.send("eth_getTransactionReceipt", [hashes[i % TRANSFERS]])));
      checks.push(
        await measure(CALLS_PER_ROUND, CONCURRENCY, (i) =>
          checkErc20Transfer(rpc, {
            txHash: hashes[i % TRANSFERS]!,
            token: payments.stablecoin.address,
            from: payments.agents[0].address,
            to: payments.payee.address,
            amountRaw: 10_000n + BigInt(i % TRANSFERS),
          }),
        ),
      );
    }
    console.log(`payment proof checks (wallet rail, rpc mode; ${CONCURRENCY} concurrent, ${CALLS_PER_ROUND} calls per round, ${rounds} rounds)`);
    const b = summarize("bare eth_getTransactionReceipt", bare, 32);
    const c = summarize("checkErc20Transfer", checks, 32);
    console.log(`  proof checks / bare receipt reads  ${((100 * c.rps) / b.rps).toFixed(1)}%`);
  } finally {
    provider.destroy();
    reader.close();
    await chain.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("payment-proofs.ts")) {
  await benchPaymentProofs(Number(process.env.BENCH_ROUNDS ?? 3));
}

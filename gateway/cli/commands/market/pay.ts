/**
 * `cli market pay`: opens the order's payment; with `--rail wallet` it also pays on chain and proves it:
 *
 *   1. POST /market/orders/:id/payment-intent { rail: "wallet", payer } names token, payee and raw amount;
 *   2. the agent key (demo.json's demo agent, or MARKET_AGENT_PRIVATE_KEY) sends the stablecoin `transfer` over the
 *      chain RPC (CHAIN_RPC_URL, else demo.json's embedded node) and waits for its receipt;
 *   3. POST /market/orders/:id/payment-proof { mode: "rpc", txHash, from }: the server checks the receipt's Transfer.
 *
 * Without `--rail` (or with the order's default rail) it is the intent alone. Prints one JSON line per step.
 */
import { Contract, NonceManager, type Wallet } from "ethers";
import { contractInterface } from "../../../../subgraphs/shared/chain/artifacts.js";
import { readDemoFixture } from "../../../../subgraphs/shared/chain/demo-fixture.js";
import { minedReceipt } from "../../../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../../../subgraphs/shared/chain/rpc.js";
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { CliError, parseOptions, printResult, progress, required, type CliSubcommand } from "../../command.js";

export interface PayClient {
  call(method: string, path: string, body?: unknown, expected?: number[]): Promise<any>;
}

export const PAY_USAGE = `Usage: cli market pay --order <ord_…> [--rail wallet] [--token T] [--api http://127.0.0.1:<MARKETS_PORT>]
Opens the order's payment (payment-intent). With --rail wallet: sends the stablecoin transfer the intent names from the
agent key and submits its transaction hash as the proof (rpc mode).`;

/** Sends `amountRaw` of `token` to `payee` from the agent and answers the mined transaction's hash. */
export async function sendTransfer(agent: Wallet, token: string, payee: string, amountRaw: bigint): Promise<string> {
  const config = loadConfig();
  const rpcUrl = config.chain.rpcUrl ?? readDemoFixture(config.dataDir)?.rpcUrl;
  if (!rpcUrl) throw new CliError("no chain RPC: set CHAIN_RPC_URL, or start the platform so demo.json names its node");
  const provider = createProvider(rpcUrl, { chainId: config.chain.chainId, timeoutMs: config.chain.requestTimeoutMs });
  try {
    const signer = new NonceManager(agent.connect(provider));
    const contract = new Contract(token, contractInterface("TestStablecoin"), signer);
    return (await minedReceipt(await contract.transfer(payee, amountRaw))).hash;
  } finally {
    provider.destroy();
  }
}

/** The pay step alone (also used by `market demo` with rail undefined). */
export async function pay(client: PayClient, orderId: string, agent: Wallet, rail?: string) {
  const intent = (await client.call("POST", `/market/orders/${orderId}/payment-intent`, rail ? { rail, payer: agent.address } : {})).item;
  printResult({ step: "pay", paymentStatus: intent.payment.status, orderStatus: intent.orderStatus, rail: intent.payment.rail });
  if (rail !== "wallet") return intent;
  const { token, payee, amountRaw } = intent.payment;
  progress(`pay: sending ${amountRaw} raw units of ${token} to ${payee}`);
  const txHash = await sendTransfer(agent, token, payee, BigInt(amountRaw));
  printResult({ step: "transfer", txHash });
  const proof = (await client.call("POST", `/market/orders/${orderId}/payment-proof`, { mode: "rpc", txHash, from: agent.address })).item;
  printResult({ step: "proof", paymentStatus: proof.payment.status, rail: proof.payment.rail, orderStatus: proof.orderStatus, txHash: proof.payment.txHash });
  return proof;
}

export function payCommand(makeClient: (api: string | undefined, token: string | undefined) => PayClient, agentWallet: () => Wallet): CliSubcommand {
  return {
    name: "pay",
    summary: "open the order's payment (payment-intent); --rail wallet also transfers the stablecoin and proves it",
    usage: PAY_USAGE,
    async run(args) {
      const o = parseOptions(args, { order: { type: "string" }, rail: { type: "string" }, token: { type: "string" }, api: { type: "string" } }, PAY_USAGE);
      if (!o) return;
      if (o.rail !== undefined && o.rail !== "wallet" && o.rail !== "not-required") throw new CliError(`--rail ${o.rail}: the CLI pays on the wallet rail (or not-required)`);
      await pay(makeClient(o.api, o.token), required(o.order, "--order", PAY_USAGE), agentWallet(), o.rail);
    },
  };
}

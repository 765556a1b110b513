/**
 * Document 3 payments on the embedded chain: the escrow operator is allowed in PaymentEscrow and has gas, and the
 * demo agents hold test stablecoin and native tokens (docs/markets-payments.md).
 *
 * Idempotent: the operator is set only when it is not yet, and an agent is topped up only below its demo balance, so a
 * restart on a kept chain sends nothing.
 */
import { parseEther, parseUnits, toBeHex, Wallet, type JsonRpcProvider, type Signer } from "ethers";
import { connectContract } from "./contracts.js";
import { waitFor, type ContractAddresses } from "./deploy.js";
import { DEMO_PAYEE_LABEL } from "../config/payments.js";
import { demoMarketAgent, demoWallet } from "./dev-keys.js";

/** Stablecoin every demo agent holds after seeding (6 decimals). */
export const DEMO_AGENT_STABLECOIN = parseUnits("10000", 6);
/** Labels of the demo agents' keys (dev-keys.ts demoWallet). */
export const DEMO_AGENT_LABELS = ["agent-1", "agent-2", "agent-3"] as const;

export interface DemoPaymentAccount {
  label: string;
  address: string;
  privateKey: string;
}

export interface DemoPaymentsFixture {
  /** The test stablecoin: EIP-712 domain `name`/`version` as x402 requirements name them in `extra`. */
  stablecoin: { address: string; name: string; version: string; symbol: string; decimals: number };
  escrow: { address: string; operatorAddress: string };
  /** Agents funded with stablecoin and gas; they sign transfers, escrow deposits and x402 authorizations. */
  agents: DemoPaymentAccount[];
  payee: DemoPaymentAccount;
}

/** Allows `operatorAddress` in PaymentEscrow (admin = deployer) and gives it gas on the embedded chain. */
export async function ensureEscrowOperator(
  provider: JsonRpcProvider,
  admin: Signer,
  contracts: ContractAddresses,
  operatorAddress: string,
): Promise<void> {
  const balance = await provider.getBalance(operatorAddress);
  if (balance < parseEther("10")) await provider.send("anvil_setBalance", [operatorAddress, toBeHex(parseEther("1000"))]);
  const escrow = connectContract("PaymentEscrow", contracts, admin);
  if (!(await escrow.isOperator(operatorAddress))) await waitFor(escrow.setOperator(operatorAddress, true));
}

/** Funds the demo agents (stablecoin minted by the admin, ETH set on anvil) and names them for demo.json. */
export async function seedPaymentsDemo(
  provider: JsonRpcProvider,
  admin: Signer,
  contracts: ContractAddresses,
  operatorAddress: string,
): Promise<DemoPaymentsFixture> {
  const token = connectContract("TestStablecoin", contracts, admin);
  const account = (label: string): DemoPaymentAccount => {
    const wallet = demoWallet(label);
    return { label, address: wallet.address, privateKey: wallet.privateKey };
  };
  const market = demoMarketAgent();
  // agent-1..3, then the CLI's market agent (demo.json markets.agent), so `cli market pay` has stablecoin too.
  const agents = [...DEMO_AGENT_LABELS.map(account), { label: "market-agent", address: market.address, privateKey: market.privateKey }];
  for (const agent of agents) {
    await provider.send("anvil_setBalance", [agent.address, toBeHex(parseEther("100"))]);
    const held = (await token.balanceOf(agent.address)) as bigint;
    if (held < DEMO_AGENT_STABLECOIN) await waitFor(token.mint(agent.address, DEMO_AGENT_STABLECOIN - held));
  }
  return {
    stablecoin: {
      address: contracts.TestStablecoin,
      name: (await token.name()) as string,
      version: (await token.version()) as string,
      symbol: (await token.symbol()) as string,
      decimals: Number(await token.decimals()),
    },
    escrow: { address: contracts.PaymentEscrow, operatorAddress },
    agents,
    payee: account(DEMO_PAYEE_LABEL),
  };
}

export function escrowOperatorAddress(key: string): string {
  return new Wallet(key).address;
}

/**
 * The transaction overrides a flow sends a payment with. ethers' providers share an identical request made within
 * 250 ms (`cacheTimeout`), `eth_getTransactionCount(payer, "pending")` included, so two payments from one key in
 * quick succession (a transfer, then the next order's approve) can be given the same nonce and the second refused
 * with "nonce has already been used". When the payer's provider speaks JSON-RPC, the nonce is read with a request of
 * its own, which that cache does not serve; another provider keeps ethers' own nonce lookup.
 */
import type { Signer } from "ethers";

interface JsonRpcSender {
  send(method: string, params: unknown[]): Promise<unknown>;
}

export async function paymentOverrides(payer: Signer): Promise<{ nonce?: number }> {
  const provider = payer.provider as Partial<JsonRpcSender> | null;
  if (typeof provider?.send !== "function") return {};
  const count = await provider.send("eth_getTransactionCount", [await payer.getAddress(), "pending"]);
  return { nonce: Number(count) };
}

/**
 * The `x402` rail (public notes 5.2): v1 `exact` scheme PaymentRequirements for an order, verification of the signed
 * EIP-3009 TransferWithAuthorization an agent sends back (the `X-PAYMENT` / `PAYMENT-SIGNATURE` value: base64 JSON
 * PaymentPayload), and settlement by submitting `transferWithAuthorization` from the escrow operator key (the
 * platform acts as its own facilitator).
 *
 * Checks, in the order x402's reference facilitator makes them, each with its code: version, scheme and network match
 * the requirements, asset and payTo match (PAYMENT_AUTHORIZATION_INVALID); the EIP-712 signature recovers `from`
 * (PAYMENT_AUTHORIZATION_INVALID); validAfter <= now < validBefore - 6 s, the settlement margin x402 keeps
 * (PAYMENT_AUTHORIZATION_EXPIRED); value equals maxAmountRequired (exactly: an order has one price); the nonce is
 * unused on the token (`authorizationState`, PAYMENT_AUTHORIZATION_USED); the balance covers it
 * (PAYMENT_INSUFFICIENT_FUNDS). Why the `x402` npm package is not used here: docs/markets-payments.md.
 */
import { getAddress, id, isAddress, isHexString, zeroPadValue } from "ethers";
import { contractInterface } from "../../../shared/chain/artifacts.js";
import type { ChainSender } from "./chain.sender.js";
import { recoverAuthorizer, type Authorization, type TokenDomain } from "./eip3009.js";
import { PaymentErrors } from "./payment.errors.js";
import type { PaymentRpc } from "./rpc.js";
import { matchTransfer, type CheckedTransfer, type RpcReceipt } from "./transfer.check.js";

/** x402 v1 PaymentRequirements (scheme `exact`, EVM). */
export interface PaymentRequirements {
  scheme: "exact";
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: { name: string; version: string };
}

/** x402 v1 PaymentPayload of the `exact` EVM scheme. */
export interface PaymentPayload {
  x402Version: 1;
  scheme: "exact";
  network: string;
  payload: { signature: string; authorization: Authorization };
}

/** Seconds before validBefore a settlement must still have (x402's facilitator uses the same 6). */
export const SETTLEMENT_MARGIN_SECONDS = 6;

export interface RequirementsInput {
  network: string;
  token: TokenDomain;
  payTo: string;
  amountRaw: bigint;
  /** The URL of the thing paid for (the order's execute route). */
  resource: string;
  description: string;
  maxTimeoutSeconds: number;
}

export function buildRequirements(input: RequirementsInput): PaymentRequirements {
  return {
    scheme: "exact",
    network: input.network,
    maxAmountRequired: input.amountRaw.toString(),
    resource: input.resource,
    description: input.description,
    mimeType: "application/json",
    payTo: getAddress(input.payTo),
    maxTimeoutSeconds: input.maxTimeoutSeconds,
    asset: getAddress(input.token.verifyingContract),
    extra: { name: input.token.name, version: input.token.version },
  };
}

const UINT = /^(0|[1-9]\d{0,77})$/;

/** Parses a PaymentPayload (an object, or the base64 JSON header value); any other shape is VALIDATION_ERROR. */
export function parsePaymentPayload(value: unknown): PaymentPayload {
  let parsed = value;
  if (typeof value === "string") {
    if (value.length > 8192) throw PaymentErrors.validation();
    try {
      parsed = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
    } catch {
      throw PaymentErrors.validation();
    }
  }
  const p = parsed as PaymentPayload | null;
  const a = p?.payload?.authorization;
  const ok =
    typeof p === "object" && p !== null &&
    p.x402Version === 1 && p.scheme === "exact" && typeof p.network === "string" &&
    typeof p.payload?.signature === "string" && isHexString(p.payload.signature) &&
    typeof a === "object" && a !== null &&
    isAddress(a.from) && isAddress(a.to) &&
    [a.value, a.validAfter, a.validBefore].every((n) => typeof n === "string" && UINT.test(n)) &&
    isHexString(a.nonce, 32);
  if (!ok) throw PaymentErrors.validation();
  return {
    x402Version: 1,
    scheme: "exact",
    network: p.network,
    payload: {
      signature: p.payload.signature,
      authorization: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
    },
  };
}

export interface X402Context {
  rpc: PaymentRpc;
  chainId: number;
  /** Unix seconds now (the platform clock). */
  now: number;
}

/** Verifies the payload against the requirements and the chain; answers the payer. */
export async function verifyPayment(ctx: X402Context, payload: PaymentPayload, req: PaymentRequirements): Promise<{ payer: string }> {
  const auth = payload.payload.authorization;
  const same = (a: string, b: string) => getAddress(a) === getAddress(b);
  if (payload.network !== req.network || payload.scheme !== req.scheme || !same(auth.to, req.payTo)) {
    throw PaymentErrors.authorizationInvalid();
  }
  const token: TokenDomain = { name: req.extra.name, version: req.extra.version, chainId: ctx.chainId, verifyingContract: req.asset };
  const signer = recoverAuthorizer(token, auth, payload.payload.signature);
  if (!signer || !same(signer, auth.from)) throw PaymentErrors.authorizationInvalid();
  if (BigInt(auth.value) !== BigInt(req.maxAmountRequired)) throw PaymentErrors.authorizationInvalid();
  if (BigInt(auth.validAfter) > BigInt(ctx.now) || BigInt(auth.validBefore) < BigInt(ctx.now + SETTLEMENT_MARGIN_SECONDS)) {
    throw PaymentErrors.authorizationExpired();
  }
  const [used, balance] = await Promise.all([
    tokenView(ctx.rpc, req.asset, "authorizationState", [auth.from, auth.nonce]),
    tokenView(ctx.rpc, req.asset, "balanceOf", [auth.from]),
  ]);
  if (used === true) throw PaymentErrors.authorizationUsed();
  if ((balance as bigint) < BigInt(auth.value)) throw PaymentErrors.insufficientFunds();
  return { payer: getAddress(auth.from) };
}

export interface Settlement extends CheckedTransfer {
  payer: string;
}

/** Verifies again, then submits transferWithAuthorization and checks the mined Transfer. */
export async function settlePayment(
  ctx: X402Context & { sender: ChainSender },
  payload: PaymentPayload,
  req: PaymentRequirements,
): Promise<Settlement> {
  const { payer } = await verifyPayment(ctx, payload, req);
  const auth = payload.payload.authorization;
  const data = contractInterface("TestStablecoin").encodeFunctionData(
    "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)",
    [auth.from, auth.to, BigInt(auth.value), BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, payload.payload.signature],
  );
  const sent = await ctx.sender.send(req.asset, data);
  const transfer = matchTransfer(sent.receipt, { token: req.asset, from: auth.from, to: auth.to, amountRaw: BigInt(auth.value) });
  return { ...transfer, payer };
}

/**
 * The mined settlement of this authorization, when its nonce is already used: the token's AuthorizationUsed(from,
 * nonce) log leads to a successful transaction whose Transfer pays exactly the authorization. This is how a
 * settlement sent by an earlier execute whose record did not commit is recovered instead of being refused as
 * PAYMENT_AUTHORIZATION_USED. Null when the nonce is unused, or used without such a transfer (cancelled).
 */
export async function findSettlement(ctx: X402Context, payload: PaymentPayload, req: PaymentRequirements): Promise<Settlement | null> {
  const auth = payload.payload.authorization;
  if ((await tokenView(ctx.rpc, req.asset, "authorizationState", [auth.from, auth.nonce])) !== true) return null;
  const topics = [id("AuthorizationUsed(address,bytes32)"), zeroPadValue(getAddress(auth.from), 32), auth.nonce];
  const logs = await ctx.rpc.send<Array<{ transactionHash: string }>>("eth_getLogs", [{ address: req.asset, topics, fromBlock: "0x0", toBlock: "latest" }]);
  for (const log of logs) {
    const receipt = await ctx.rpc.send<RpcReceipt | null>("eth_getTransactionReceipt", [log.transactionHash]);
    if (!receipt || receipt.status !== "0x1") continue;
    try {
      const transfer = matchTransfer(receipt, { token: req.asset, from: auth.from, to: auth.to, amountRaw: BigInt(auth.value) });
      return { ...transfer, payer: getAddress(auth.from) };
    } catch {
      continue;
    }
  }
  return null;
}

async function tokenView(rpc: PaymentRpc, token: string, method: string, args: unknown[]): Promise<unknown> {
  const iface = contractInterface("TestStablecoin");
  const raw = await rpc.send<string>("eth_call", [{ to: token, data: iface.encodeFunctionData(method, args) }, "latest"]);
  try {
    return iface.decodeFunctionResult(method, raw)[0];
  } catch {
    throw PaymentErrors.rpcError();
  }
}

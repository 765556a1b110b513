/**
 * The `onchain-escrow` rail: PaymentEscrow holds the test stablecoin per market order. Lock, release and refund are
 * transactions the platform's escrow operator sends (ChainSender), each checked on chain before the caller records
 * it: the receipt's event (order key, parties, amount), the token's Transfer log and the escrow's state read back.
 *
 * Lock takes the payer's money one of two ways: the payer approved PaymentEscrow (`lockFrom`), or the payer signed an
 * EIP-3009 ReceiveWithAuthorization to the escrow whose nonce is `lockNonce(orderKey, payee)` (`lockWithAuthorization`),
 * which binds the signature to this order and payee. Lock is idempotent: an escrow already locked with the same
 * parties and amount answers without a transaction; one with other terms is PAYMENT_ESCROW_MISMATCH. Release and
 * refund need a locked escrow (PAYMENT_ESCROW_NOT_LOCKED otherwise), so neither can run twice.
 */
import { AbiCoder, getAddress, id, keccak256, type Interface, type Result } from "ethers";
import { contractInterface } from "../../../shared/chain/artifacts.js";
import type { ChainSender } from "./chain.sender.js";
import { PaymentErrors } from "./payment.errors.js";
import type { PaymentRpc } from "./rpc.js";
import { matchTransfer, type RpcReceipt } from "./transfer.check.js";

export type EscrowState = "none" | "locked" | "released" | "refunded";
const STATES: EscrowState[] = ["none", "locked", "released", "refunded"];

export interface EscrowOnChain {
  orderKey: string;
  payer: string;
  payee: string;
  amountRaw: bigint;
  state: EscrowState;
}

export interface EscrowLockInput {
  orderId: string;
  payer: string;
  payee: string;
  amountRaw: bigint;
  /** The payer's signed ReceiveWithAuthorization (to the escrow, nonce lockNonce); without it the payer's approval is used. */
  authorization?: { validAfter: string; validBefore: string; signature: string };
}

export interface EscrowResult {
  escrow: EscrowOnChain;
  /** The transaction that made the change; null when lock found the escrow already locked with the same terms. */
  txHash: string | null;
}

/** The bytes32 an order is known by in PaymentEscrow. */
export function escrowOrderKey(orderId: string): string {
  return id(`market-order:${orderId}`);
}

/** PaymentEscrow.lockNonce computed locally: keccak256(abi.encode(escrow, orderKey, payee)). */
export function escrowLockNonce(escrow: string, orderKey: string, payee: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(["address", "bytes32", "address"], [getAddress(escrow), orderKey, getAddress(payee)]));
}

export class EscrowRail {
  private readonly escrowIface: Interface = contractInterface("PaymentEscrow");

  constructor(
    private readonly rpc: PaymentRpc,
    private readonly sender: ChainSender,
    readonly addresses: { escrow: string; token: string },
  ) {}

  /** The escrow of an order as the chain holds it now (latest block). */
  async read(orderId: string): Promise<EscrowOnChain> {
    const orderKey = escrowOrderKey(orderId);
    const [view] = await this.call("getEscrow", [orderKey]);
    return {
      orderKey,
      payer: getAddress(view.payer as string),
      payee: getAddress(view.payee as string),
      amountRaw: BigInt(view.amount),
      state: STATES[Number(view.state)] ?? "none",
    };
  }

  /** The nonce a payer signs for lockWithAuthorization of this order and payee. */
  async lockNonce(orderId: string, payee: string): Promise<string> {
    const [nonce] = await this.call("lockNonce", [escrowOrderKey(orderId), getAddress(payee)]);
    return nonce as string;
  }

  async lock(input: EscrowLockInput): Promise<EscrowResult> {
    const payer = getAddress(input.payer);
    const payee = getAddress(input.payee);
    const current = await this.read(input.orderId);
    if (current.state !== "none") {
      const same = current.payer === payer && current.payee === payee && current.amountRaw === input.amountRaw;
      if (current.state === "locked" && same) return { escrow: current, txHash: null };
      throw current.state === "locked" || !same ? PaymentErrors.escrowMismatch() : PaymentErrors.escrowNotLocked();
    }
    const key = current.orderKey;
    const data = input.authorization
      ? this.escrowIface.encodeFunctionData("lockWithAuthorization", [
          key,
          payee,
          payer,
          input.amountRaw,
          BigInt(input.authorization.validAfter),
          BigInt(input.authorization.validBefore),
          input.authorization.signature,
        ])
      : this.escrowIface.encodeFunctionData("lockFrom", [key, payer, payee, input.amountRaw]);
    const sent = await this.sender.send(this.addresses.escrow, data);
    this.expectEvent(sent.receipt, "Locked", [key, payer, payee, input.amountRaw]);
    matchTransfer(sent.receipt, { token: this.addresses.token, from: payer, to: this.addresses.escrow, amountRaw: input.amountRaw });
    return { escrow: await this.expectState(input.orderId, "locked"), txHash: sent.hash };
  }

  async release(orderId: string): Promise<EscrowResult> {
    return this.settle(orderId, "release");
  }

  async refund(orderId: string): Promise<EscrowResult> {
    return this.settle(orderId, "refund");
  }

  private async settle(orderId: string, action: "release" | "refund"): Promise<EscrowResult> {
    const current = await this.read(orderId);
    if (current.state !== "locked") throw PaymentErrors.escrowNotLocked();
    const sent = await this.sender.send(this.addresses.escrow, this.escrowIface.encodeFunctionData(action, [current.orderKey]));
    const to = action === "release" ? current.payee : current.payer;
    this.expectEvent(sent.receipt, action === "release" ? "Released" : "Refunded", [current.orderKey, to, current.amountRaw]);
    matchTransfer(sent.receipt, { token: this.addresses.token, from: this.addresses.escrow, to, amountRaw: current.amountRaw });
    return { escrow: await this.expectState(orderId, action === "release" ? "released" : "refunded"), txHash: sent.hash };
  }

  private async call(method: string, args: unknown[]): Promise<Result> {
    const data = this.escrowIface.encodeFunctionData(method, args);
    const raw = await this.rpc.send<string>("eth_call", [{ to: this.addresses.escrow, data }, "latest"]);
    try {
      return this.escrowIface.decodeFunctionResult(method, raw);
    } catch {
      throw PaymentErrors.rpcError();
    }
  }

  /** The escrow's event with exactly these arguments is in the receipt, emitted by the escrow; else the chain disagrees. */
  private expectEvent(receipt: RpcReceipt, name: string, expected: unknown[]): void {
    const escrow = getAddress(this.addresses.escrow);
    for (const log of receipt.logs) {
      if (getAddress(log.address) !== escrow) continue;
      const parsed = this.escrowIface.parseLog({ topics: log.topics, data: log.data });
      if (parsed?.name !== name) continue;
      const args = parsed.args.toArray().map((value) => (typeof value === "string" ? value.toLowerCase() : value));
      if (expected.every((value, i) => (typeof value === "string" ? value.toLowerCase() : value) === args[i])) return;
    }
    throw PaymentErrors.txFailed();
  }

  private async expectState(orderId: string, state: EscrowState): Promise<EscrowOnChain> {
    const escrow = await this.read(orderId);
    if (escrow.state !== state) throw PaymentErrors.txFailed();
    return escrow;
  }
}

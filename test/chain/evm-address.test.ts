/**
 * The ethers-free key and address checks configuration loading uses (subgraphs/shared/chain/evm-address.ts) give
 * ethers' answers: which private keys are keys, address validity (checksums included) and the EIP-55 spelling; and
 * the demo payee's address written out in config/payments.ts is the one its key derives.
 */
import { getAddress, isAddress, Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { checksumAddress, isEvmAddress, isPrivateKey } from "../../subgraphs/shared/chain/evm-address.js";
import { DEV_DEPLOYER_KEY, demoWallet } from "../../subgraphs/shared/chain/dev-keys.js";
import { DEMO_PAYEE_ADDRESS, DEMO_PAYEE_LABEL, loadPaymentsConfig } from "../../subgraphs/shared/config/payments.js";

const N = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";

describe("EVM keys and addresses without ethers", () => {
  it("accepts the keys ethers accepts (with or without 0x) and refuses what it refuses: zero, the group order, wrong length", () => {
    const nMinus1 = `0x${(BigInt(N) - 1n).toString(16)}`;
    for (const key of [DEV_DEPLOYER_KEY, DEV_DEPLOYER_KEY.slice(2), demoWallet("owner-1").privateKey, nMinus1, `0x${"00".repeat(31)}01`]) {
      expect(isPrivateKey(key), key).toBe(true);
      expect(() => new Wallet(key)).not.toThrow();
    }
    for (const bad of [`0x${"00".repeat(32)}`, N, "0x1234", `${DEV_DEPLOYER_KEY}00`, "0xzz" + "0".repeat(62)]) {
      expect(isPrivateKey(bad), bad).toBe(false);
      expect(() => new Wallet(bad)).toThrow();
    }
  });

  it("validates and checksums addresses as ethers' isAddress and getAddress do", () => {
    const address = new Wallet(DEV_DEPLOYER_KEY).address;
    const badChecksum = address.slice(0, -1) + (address.endsWith("6") ? "7" : "6");
    const first = address.slice(2, 3);
    const wrongCase = `0x${first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase()}${address.slice(3)}`;
    const samples = [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`, badChecksum, wrongCase, "0x1234", "", address.slice(2), address.slice(2).toUpperCase(), `${address}00`];
    for (const sample of samples) {
      expect(isEvmAddress(sample), sample).toBe(isAddress(sample));
      if (isAddress(sample)) expect(checksumAddress(sample)).toBe(getAddress(sample));
      else expect(() => checksumAddress(sample)).toThrow();
    }
  });

  it("the demo payee's written-out address is its key's, and the dev config pays it", () => {
    expect(DEMO_PAYEE_ADDRESS).toBe(demoWallet(DEMO_PAYEE_LABEL).address);
    expect(loadPaymentsConfig({}, 3338).payeeAddress).toBe(DEMO_PAYEE_ADDRESS);
    expect(loadPaymentsConfig({ PAYMENT_PAYEE_ADDRESS: DEMO_PAYEE_ADDRESS.toLowerCase() }, 3338).payeeAddress).toBe(DEMO_PAYEE_ADDRESS);
    expect(() => loadPaymentsConfig({ PAYMENT_PAYEE_ADDRESS: "0x1234" }, 3338)).toThrow("PAYMENT_PAYEE_ADDRESS must be an EVM address");
    expect(() => loadPaymentsConfig({ ESCROW_OPERATOR_KEY: N }, 3338)).toThrow("ESCROW_OPERATOR_KEY must be a 32-byte hex private key");
  });
});

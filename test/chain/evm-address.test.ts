/**
 * The ethers-free key and address helpers configuration loading uses (subgraphs/shared/chain/evm-address.ts) give
 * ethers' answers: the address of a key, address validity (checksums included) and the EIP-55 spelling.
 */
import { getAddress, isAddress, keccak256, toUtf8Bytes, Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { addressOfKey, checksumAddress, demoKey, isEvmAddress, isPrivateKey } from "../../subgraphs/shared/chain/evm-address.js";
import { DEV_DEPLOYER_KEY, demoWallet } from "../../subgraphs/shared/chain/dev-keys.js";

const N = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";

describe("EVM keys and addresses without ethers", () => {
  const keys = [DEV_DEPLOYER_KEY, ...["owner-1", "payee-demo-oracle", "operator-5"].map(demoKey), `0x${"00".repeat(31)}01`];

  it("derives the address ethers derives from a key", () => {
    for (const key of keys) expect(addressOfKey(key)).toBe(new Wallet(key).address);
    expect(addressOfKey(demoKey("owner-1"))).toBe(demoWallet("owner-1").address);
    expect(demoKey("x")).toBe(keccak256(toUtf8Bytes("demo|x")));
  });

  it("takes a key without 0x, as ethers does, and refuses what ethers refuses: zero, the group order, wrong length", () => {
    expect(addressOfKey(DEV_DEPLOYER_KEY.slice(2))).toBe(new Wallet(DEV_DEPLOYER_KEY.slice(2)).address);
    for (const bad of [`0x${"00".repeat(32)}`, N, "0x1234", `${DEV_DEPLOYER_KEY}00`, "0xzz" + "0".repeat(62)]) {
      expect(isPrivateKey(bad)).toBe(false);
      expect(() => addressOfKey(bad)).toThrow();
      expect(() => new Wallet(bad)).toThrow();
    }
  });

  it("validates and checksums addresses as ethers' isAddress and getAddress do", () => {
    const address = new Wallet(DEV_DEPLOYER_KEY).address;
    const badChecksum = address.slice(0, -1) + (address.endsWith("6") ? "7" : "6");
    const wrongCase = `0x${address.slice(2, 3).toLowerCase() === address.slice(2, 3) ? address.slice(2, 3).toUpperCase() : address.slice(2, 3).toLowerCase()}${address.slice(3)}`;
    const samples = [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`, badChecksum, wrongCase, "0x1234", "", address.slice(2), address.slice(2).toUpperCase(), `${address}00`];
    for (const sample of samples) {
      expect(isEvmAddress(sample), sample).toBe(isAddress(sample));
      if (isAddress(sample)) expect(checksumAddress(sample)).toBe(getAddress(sample));
      else expect(() => checksumAddress(sample)).toThrow();
    }
  });
});

/**
 * Run-time access to the compiled contracts (artifacts.json, produced by `npm run contracts`).
 */
import { readFileSync } from "node:fs";
import { Interface, type InterfaceAbi } from "ethers";
import type { ContractName } from "../config.js";

export interface ContractArtifact {
  abi: InterfaceAbi;
  /** Creation bytecode, 0x-prefixed. */
  bytecode: string;
}

export type Artifacts = Record<ContractName, ContractArtifact>;

let cached: Artifacts | undefined;

export function loadArtifacts(): Artifacts {
  cached ??= JSON.parse(readFileSync(new URL("./artifacts.json", import.meta.url), "utf8")) as Artifacts;
  return cached;
}

const interfaces = new Map<ContractName, Interface>();

/** The ethers Interface of one contract, built once. */
export function contractInterface(name: ContractName): Interface {
  let iface = interfaces.get(name);
  if (!iface) {
    iface = new Interface(loadArtifacts()[name].abi);
    interfaces.set(name, iface);
  }
  return iface;
}

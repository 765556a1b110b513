/**
 * Document 2's readiness checks (`GET /ready`): the RPC answers, and each contract answers a view call. Every
 * platform contract inherits `admin()`, a cheap view that fails on an address without our code.
 */
import type { ContractName } from "../config.js";
import { contractInterface } from "./artifacts.js";
import { NOT_READY } from "./decode.js";
import type { ReadinessProbe } from "./types.js";
import type { Clock } from "../clock.js";

type Send = <T>(method: string, params: unknown[]) => Promise<T>;


export async function probeReadiness(addresses: Partial<Record<ContractName, string>>, send: Send): Promise<ReadinessProbe> {
  // Document 2: without the registries the services are not initialised and every check reads false.
  if (!addresses.IdentityRegistry || !addresses.MachineRegistry) return NOT_READY;
  const answers = (promise: Promise<unknown>) => promise.then(() => true, () => false);
  const callable = (name: ContractName) => {
    const to = addresses[name];
    if (!to) return Promise.resolve(false);
    const data = contractInterface(name).encodeFunctionData("admin", []);
    return answers(send<string>("eth_call", [{ to, data }, "latest"]).then((raw) => contractInterface(name).decodeFunctionResult("admin", raw)));
  };
  const [rpc_connected, identity_registry, identity_staking, event_registry, machine_nft, did_registry, adminFlags] = await Promise.all([
    answers(send("eth_blockNumber", [])),
    callable("IdentityRegistry"),
    callable("IdentityStaking"),
    callable("EventRegistry"),
    callable("MachineNFT"),
    callable("DidRegistry"),
    callable("AdminFlags"),
  ]);
  return {
    rpc_connected,
    contracts: {
      identity_registry,
      identity_staking,
      event_registry,
      machine_nft,
      did_registry,
      // Document 2: the AdminFlags probe is skipped (true) when its address is not configured.
      admin_flags: addresses.AdminFlags ? adminFlags : true,
    },
  };
}

/** How long a readiness answer is reused after it arrived. */
const PROBE_REUSE_MS = 1000;

/** One probe in flight at a time, its answer reused for a second after it arrived (by `clock`). */
export class SharedProbe {
  private last: { result: Promise<ReadinessProbe>; settledAt?: number } | null = null;

  constructor(
    private readonly run: () => Promise<ReadinessProbe>,
    private readonly clock: Clock,
  ) {}

  get(): Promise<ReadinessProbe> {
    const last = this.last;
    if (last && (last.settledAt === undefined || this.clock.now() - last.settledAt < PROBE_REUSE_MS)) return last.result;
    const entry: { result: Promise<ReadinessProbe>; settledAt?: number } = { result: this.run() };
    void entry.result.finally(() => (entry.settledAt = this.clock.now()));
    this.last = entry;
    return entry.result;
  }
}

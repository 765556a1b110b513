/**
 * Where MCR's cold read of a 10,000-event history spends its time: `npx tsx test/bench/profile/profile-mcr.ts [rounds]`
 * (under `node --cpu-prof` for a profile of this process). Seeds the history once, then per round and per way of
 * reading the pages: wall time, this process's CPU and anvil's CPU (from /proc), with the transport alone (answers
 * read as text), JSON parsing and decoding timed apart.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { openPlatformChain } from "../../../subgraphs/shared/chain/embedded.js";
import { ChainReader } from "../../../subgraphs/shared/chain/reader.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { systemClock } from "../../../subgraphs/shared/clock.js";
import { RatingsChain } from "../../../subgraphs/ratings/chain/ratings-chain.js";
import { decodeMachineEvents } from "../../../subgraphs/ratings/chain/event-decoder.js";
import { McrService } from "../../../subgraphs/ratings/scoring/mcr.service.js";
import { FixedRates } from "../../../subgraphs/ratings/scoring/fx.js";
import { EVENTS, seedHistory } from "../mcr-scoring.js";
import { median } from "../stats.js";

const rounds = Number(process.argv[2] ?? 5);
const TICK_MS = 1000 / 100;

/** utime + stime of a process, ms (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const dataDir = await mkdtemp(path.join(os.tmpdir(), "mcr-profile-"));
const config = loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", SEED_DEMO: "0", LOG_LEVEL: "silent" });
const chain = await openPlatformChain(config);
const anvilPid = Number(readFileSync(path.join(dataDir, "chain", "anvil.pid"), "utf8"));
const provider = createProvider(chain.rpcUrl, { chainId: chain.chainId, timeoutMs: 60_000 });
const to = chain.addresses.EventRegistry!;

const session = new Session();
session.connect();
const profiler = (method: string) =>
  new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
await profiler("Profiler.enable");
await new Promise((resolve) => session.post("Profiler.setSamplingInterval", { interval: 100 }, resolve));

type Figures = Record<string, number[]>;
const figures: Figures = {};
const note = (name: string, value: number) => (figures[name] ??= []).push(value);

async function measure(name: string, run: () => Promise<void>): Promise<void> {
  const [wall0, own0, anvil0] = [performance.now(), ownCpuMs(), processCpuMs(anvilPid)];
  await run();
  note(`${name} wall`, performance.now() - wall0);
  note(`${name} cpu here`, ownCpuMs() - own0);
  note(`${name} cpu anvil`, processCpuMs(anvilPid) - anvil0);
}

try {
  await seedHistory(provider, chain.addresses as Record<string, string>);
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    await provider.send("eth_call", [{ to, data: "0x" }, "latest"]).catch(() => {});
    note("one eth_call", performance.now() - start);

    if (process.env.PROFILE_OUT) await profiler("Profiler.start");
    await measure("cold score", async () => {
      const reader = new ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 30_000, pollIntervalMs: 60_000 });
      await reader.start();
      const service = new McrService(new RatingsChain(reader, chain.addresses), new FixedRates(), systemClock, 3600, () => {});
      await service.score(1n);
      reader.close();
    });
    if (process.env.PROFILE_OUT) {
      const { profile } = (await profiler("Profiler.stop")) as { profile: object };
      writeFileSync(`${process.env.PROFILE_OUT}.${round}.cpuprofile`, JSON.stringify(profile));
    }
    if (process.env.COLD_ONLY) continue;

    // The pages through the reader's batched path (a fresh reader each), page size and pages per batch varied, in a
    // rotating order.
    const variants = (process.env.VARIANTS ?? "100x10 100x1 250x1 250x2 500x1").split(" ").map((v) => v.split("x").map(Number) as [number, number]);
    for (let v = 0; v < variants.length; v++) {
      const [pageSize, perBatch] = variants[(v + round) % variants.length]!;
      const reader = new ChainReader({ rpcUrl: chain.rpcUrl, addresses: chain.addresses, chainId: chain.chainId, requestTimeoutMs: 30_000, pollIntervalMs: 60_000, maxInFlight: 64 });
      await reader.start();
      const pageArgs: Array<[bigint, number, number]> = [];
      for (let offset = 0; offset < EVENTS; offset += pageSize) pageArgs.push([1n, offset, pageSize]);
      await measure(`reader pages of ${pageSize}, ${perBatch} per batch`, async () => {
        const pages = await reader.callViewsBatched("EventRegistry", "getEvents", pageArgs, (data, p) => decodeMachineEvents(data, pageArgs[p]![1]), perBatch);
        if (pages.flat().length !== EVENTS) throw new Error("short read");
      });
      reader.close();
    }
  }
  const oneCall = median(figures["one eth_call"]!);
  console.log(`\nMCR cold read, ${EVENTS} events, medians of ${rounds} rounds (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")})`);
  for (const [name, values] of Object.entries(figures)) {
    const ms = median(values);
    console.log(`  ${name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms ${name.endsWith("wall") ? `(${(ms / oneCall).toFixed(0)} eth_calls)` : ""}`);
  }
} finally {
  provider.destroy();
  await chain.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** What every benchmark reports: one autocannon round as a sample, medians over rounds, one printed line. */
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import type autocannon from "autocannon";
import { processTree } from "../support/processes.js";

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU time (user + system) the serving process spent per request in the round, microseconds (`measureCpu`). */
  cpuUs?: number;
  /** The kernel's part of `cpuUs` (system time: socket writes and reads, pipes, page faults), microseconds. */
  sysUs?: number;
}

/** Rounds, seconds per round and connections (or workers) of a benchmark: BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS. */
export interface BenchOptions {
  rounds: number;
  durationS: number;
  connections: number;
}

/** One autocannon result as a sample. */
export function autocannonSample(result: autocannon.Result): Sample {
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** A closed-loop run as a sample: completions per second over `seconds`, latency quantiles (ms), failures as non-2xx. */
export function latencySample(latencies: number[], seconds: number, failures: number): Sample {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { rps: sorted.length / seconds, p50: at(0.5), p99: at(0.99), non2xx: failures };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Prints the medians of the rounds (and any non-2xx answers) under `name`, padded to `width`, and returns them. */
export function summarize(name: string, samples: Sample[], width = 28) {
  const cpu = samples.filter((x) => x.cpuUs !== undefined).map((x) => x.cpuUs!);
  const sys = samples.filter((x) => x.sysUs !== undefined).map((x) => x.sysUs!);
  const s = {
    rps: median(samples.map((x) => x.rps)),
    p50: median(samples.map((x) => x.p50)),
    p99: median(samples.map((x) => x.p99)),
    cpuUs: cpu.length > 0 ? median(cpu) : undefined,
    sysUs: sys.length > 0 ? median(sys) : undefined,
  };
  const errors = samples.reduce((sum, x) => sum + x.non2xx, 0);
  const sysText = s.sysUs === undefined ? "" : ` (kernel ${s.sysUs.toFixed(0)})`;
  const cpuText = s.cpuUs === undefined ? "" : `   CPU ${s.cpuUs.toFixed(0)} us/req${sysText}`;
  console.log(`  ${name.padEnd(width)} ${s.rps.toFixed(0).padStart(8)} req/s   p50 ${s.p50} ms   p99 ${s.p99} ms${cpuText}${errors ? `   non-2xx ${errors}` : ""}`);
  return s;
}

/** User and system CPU milliseconds of a process so far (Linux /proc; undefined elsewhere or once it exited). */
function cpuMs(pid: number | undefined): { user: number; system: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime (fields 14 and 15 of proc(5)), in clock ticks of 10 ms.
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return undefined;
  }
}

/**
 * Runs one round and adds the serving process's CPU time per request: a figure that, unlike req/s, hardly moves
 * when other work on the machine takes the cores (the process is charged only for the time it ran).
 */
export async function measureCpu(pid: number | undefined, round: () => Promise<Sample & { total: number }>): Promise<Sample> {
  const before = cpuMs(pid);
  const { total, ...sample } = await round();
  const after = cpuMs(pid);
  if (before === undefined || after === undefined || total === 0) return sample;
  const system = after.system - before.system;
  return { ...sample, cpuUs: ((after.user - before.user + system) * 1000) / total, sysUs: (system * 1000) / total };
}

/** CPU milliseconds so far of each PostgreSQL server process on this machine (its `comm` is `postgres`), by pid. */
function postgresCpuMs(): Map<number, number> {
  const used = new Map<number, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return used;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    const cpu = cpuMs(Number(pid));
    if (cpu) used.set(Number(pid), cpu.user + cpu.system);
  }
  return used;
}

/**
 * CPU milliseconds spent by the platform, the PostgreSQL server (its processes' sum), the platform's child processes
 * (the embedded dev chain) and this load generator.
 */
export interface CpuSplit {
  platform: number;
  postgres: number;
  chain: number;
  generator: number;
}

/**
 * Starts counting the CPU of the platform process `pid`, of PostgreSQL's server processes (backends that start
 * meanwhile count from zero; one that exits meanwhile is lost), of the platform's descendants and of this process;
 * the function returned ends the count.
 */
export function startCpuSplit(pid: number | undefined): () => CpuSplit {
  const total = (cpu: { user: number; system: number } | undefined) => (cpu ? cpu.user + cpu.system : 0);
  const descendants = () => (pid === undefined ? [] : processTree(pid).slice(1));
  const sumSince = (now: Map<number, number>, before: Map<number, number>) => {
    let used = 0;
    for (const [p, ms] of now) used += ms - (before.get(p) ?? 0);
    return used;
  };
  const platform = total(cpuMs(pid));
  const postgres = postgresCpuMs();
  const chain = new Map(descendants().map((p) => [p, total(cpuMs(p))]));
  const generator = total(cpuMs(process.pid));
  return () => ({
    platform: total(cpuMs(pid)) - platform,
    postgres: sumSince(postgresCpuMs(), postgres),
    chain: sumSince(new Map(descendants().map((p) => [p, total(cpuMs(p))])), chain),
    generator: total(cpuMs(process.pid)) - generator,
  });
}

/** A split per unit of work: each part divided by `count` and multiplied by `scale` (1000: milliseconds to microseconds). */
export function splitPer(used: CpuSplit, count: number, scale = 1): CpuSplit {
  const per = (ms: number) => (ms * scale) / count;
  return { platform: per(used.platform), postgres: per(used.postgres), chain: per(used.chain), generator: per(used.generator) };
}

/** The machine's cores, for a ceiling set by CPU. */
export const CORES = os.availableParallelism();

/**
 * This process's own peak resident memory in MB: `VmHWM` of /proc/self/status on Linux. `process.resourceUsage().maxRSS`
 * is not that for a spawned process: Linux carries the parent's resident size at the spawn into the child's figure, so
 * a child of a large bench process reports at least the parent's memory (where /proc is missing, it is all there is).
 */
export function peakRssMb(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Number(kb) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

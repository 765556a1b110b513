/**
 * The top of a `--cpu-prof` profile: self time per function (with file), and totals per package / area.
 * Usage: `npx tsx test/bench/profile/profile-top.ts <file.cpuprofile> [rows] [from-us to-us]` (a window of the monotonic
 * clock, as profile-read.ts prints it, keeps only the samples taken under load).
 */
import { readFileSync } from "node:fs";

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const [file, rowsText = "30", from = "0", to = "Infinity"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at < Number(from) || at > Number(to)) return;
  self.set(id, (self.get(id) ?? 0) + delta);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((a, [, t]) => a + t, 0);
const busy = total - idle;

function area(url: string, name: string): string {
  if (name === "(garbage collector)") return "GC";
  if (name === "(idle)" || name === "(program)") return name;
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1]!;
  if (url.startsWith("node:")) return url;
  if (url === "") return `native: ${name}`;
  const local = url.match(/wt-[^/]+\/([^/]+(?:\/[^/]+)?)/);
  return local ? local[1]! : url;
}
const fns = new Map<string, number>();
const areas = new Map<string, number>();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*wt-[^/]+\//, "")}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
  const a = area(url, functionName);
  areas.set(a, (areas.get(a) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
console.log(`busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled (percentages of busy time)`);
console.log("\nby area:");
for (const [a, t] of [...areas].filter(([a]) => a !== "(idle)").sort((x, y) => y[1] - x[1]).slice(0, 20)) console.log(`  ${pct(t)}  ${a}`);
console.log("\nby function (self):");
for (const [f, t] of [...fns].filter(([f]) => !f.startsWith("(idle)")).sort((x, y) => y[1] - x[1]).slice(0, Number(rowsText))) console.log(`  ${pct(t)}  ${f}`);

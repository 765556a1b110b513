/** What every benchmark reports: one autocannon round as a sample, medians over rounds, one printed line. */
export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Prints the medians of the rounds (and any non-2xx answers) under `name`, padded to `width`, and returns them. */
export function summarize(name: string, samples: Sample[], width = 28) {
  const s = { rps: median(samples.map((x) => x.rps)), p50: median(samples.map((x) => x.p50)), p99: median(samples.map((x) => x.p99)) };
  const errors = samples.reduce((sum, x) => sum + x.non2xx, 0);
  console.log(`  ${name.padEnd(width)} ${s.rps.toFixed(0).padStart(8)} req/s   p50 ${s.p50} ms   p99 ${s.p99} ms${errors ? `   non-2xx ${errors}` : ""}`);
  return s;
}

/**
 * A counter and a histogram for the per-request REST metrics, kept as plain numbers per label set and turned into
 * prom-client's form only when the registry is read (a scrape).
 *
 * prom-client's own `inc` and `observe` hash the label object on every call (sorted names, a string per call), also
 * through a `labels(...)` child: a few microseconds per request on the hot read route, more than the answer's own
 * JavaScript. Here a caller asks for a label set's series once (`series(labels)`) and keeps it; a request then costs
 * an addition (counter) or a bucket search over 13 bounds and three additions (histogram). The scrape output is the
 * same text prom-client writes for its Counter and Histogram (same names, labels, `le` buckets, `_sum`, `_count`).
 */
import type { Registry } from "prom-client";

type Labels = Readonly<Record<string, string>>;

interface MetricValue {
  labels: Record<string, string | number>;
  /** Written after `labels` (prom-client puts a histogram's `le` first, then the series' labels). */
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads from a metric: `get()` and `reset()` (see registry.js getMetricsAsString). */
abstract class ScrapedMetric<Series> {
  protected readonly sets = new Map<string, { labels: Labels; readonly series: Series }>();
  abstract readonly type: "counter" | "histogram";
  readonly aggregator = "sum" as const;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected abstract fresh(): Series;
  /** Zero a series in place: callers keep their series across a registry reset. */
  protected abstract clear(series: Series): void;
  /** Whether a series was updated since it was made or cleared (prom-client lists only those). */
  protected abstract used(series: Series): boolean;
  protected abstract values(labels: Labels, series: Series): MetricValue[];

  /** The series of one label set, created on first use; keep it and update it per request. */
  series(labels: Labels): Series {
    const key = this.labelNames.map((name) => labels[name] ?? "").join("\u0000");
    let entry = this.sets.get(key);
    if (!entry) this.sets.set(key, (entry = { labels: { ...labels }, series: this.fresh() }));
    return entry.series;
  }

  async get() {
    const values: MetricValue[] = [];
    for (const { labels, series } of this.sets.values()) if (this.used(series)) values.push(...this.values(labels, series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const entry of this.sets.values()) this.clear(entry.series);
  }
}

export interface CounterSeries {
  value: number;
}

export class ScrapedCounter extends ScrapedMetric<CounterSeries> {
  readonly type = "counter" as const;
  protected fresh(): CounterSeries {
    return { value: 0 };
  }
  protected clear(series: CounterSeries): void {
    series.value = 0;
  }
  protected used(series: CounterSeries): boolean {
    return series.value !== 0;
  }
  protected values(labels: Labels, series: CounterSeries): MetricValue[] {
    return [{ labels: { ...labels }, value: series.value }];
  }
}

export interface HistogramSeries {
  /** Observations per bucket (not cumulative), the last one above every bound. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

export class ScrapedHistogram extends ScrapedMetric<HistogramSeries> {
  readonly type = "histogram" as const;

  constructor(name: string, help: string, labelNames: readonly string[], private readonly bounds: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }

  /** One observation (prom-client's rule: the first bucket whose bound is >= the value). */
  observe(series: HistogramSeries, value: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index++;
    series.buckets[index]!++;
    series.sum += value;
    series.count++;
  }

  protected fresh(): HistogramSeries {
    return { buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }
  protected clear(series: HistogramSeries): void {
    series.buckets.fill(0);
    series.sum = 0;
    series.count = 0;
  }
  protected used(series: HistogramSeries): boolean {
    return series.count !== 0;
  }

  protected values(labels: Labels, series: HistogramSeries): MetricValue[] {
    const values: MetricValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += series.buckets[index]!;
      values.push({ labels: { le: bound }, sharedLabels: labels, value: cumulative, metricName: `${this.name}_bucket` });
    });
    values.push({ labels: { le: "+Inf" }, sharedLabels: labels, value: series.count, metricName: `${this.name}_bucket` });
    values.push({ labels: {}, sharedLabels: labels, value: series.sum, metricName: `${this.name}_sum` });
    values.push({ labels: {}, sharedLabels: labels, value: series.count, metricName: `${this.name}_count` });
    return values;
  }
}

/**
 * Counters and histograms for the hot paths, exposed through a prom-client registry in prom-client's
 * own format (a unit test compares the two texts). prom-client's `inc` and `observe` hash and validate
 * the label object on every call (its label children do too): about a microsecond each, several times
 * per proxied chat request. Here a call builds one string key from the label values, in the declared
 * order, and adds to plain numbers; the registry reads them only when /metrics is scraped.
 */
import type { Counter, Histogram, Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string | number>;

interface Series<L extends string> {
  labels: Labels<L>;
  value: number;
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf). */
  buckets: number[];
  sum: number;
  count: number;
}

interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

function keyOf<L extends string>(labelNames: readonly L[], labels: Labels<L>): string {
  let key = '';
  for (const name of labelNames) key += `${labels[name]}\u0001`;
  return key;
}

/** Only the label names declared, in their order (what prom-client reports). */
function ownLabels<L extends string>(labelNames: readonly L[], labels: Labels<L>): Labels<L> {
  const own = {} as Labels<L>;
  for (const name of labelNames) own[name] = labels[name];
  return own;
}

/**
 * What the registry reads of a metric (name, help, type, aggregator, get(), reset()): the shape of
 * prom-client's own metrics, under whose type a fast metric is registered. Series are kept by the key
 * of their label values.
 */
abstract class FastMetric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly labelNames: readonly L[];
  protected series = new Map<string, S>();

  constructor(config: MetricConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    for (const registry of config.registers) registry.registerMetric(this as unknown as Counter<L> | Histogram<L>);
  }

  reset(): void {
    this.series = new Map();
  }
}

export class FastCounter<L extends string> extends FastMetric<L, Series<L>> {
  readonly type = 'counter';

  inc(labels: Labels<L>, value = 1): void {
    const key = keyOf(this.labelNames, labels);
    const series = this.series.get(key);
    if (series) series.value += value;
    else this.series.set(key, { labels: ownLabels(this.labelNames, labels), value });
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Array<{ labels: Labels<L>; value: number }> }> {
    const values = [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class FastHistogram<L extends string> extends FastMetric<L, HistogramSeries<L>> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(config: MetricConfig<L> & { buckets: readonly number[] }) {
    super(config);
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels<L>, value: number): void {
    const key = keyOf(this.labelNames, labels);
    let series = this.series.get(key);
    if (!series) {
      series = { labels: ownLabels(this.labelNames, labels), buckets: new Array<number>(this.#bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    series.buckets[i] = (series.buckets[i] ?? 0) + 1;
    series.sum += value;
    series.count++;
  }

  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }>;
  }> {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += series.buckets[i] ?? 0;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: bucketName });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

import type { Registry } from 'prom-client';

/** One line of the exposition, as prom-client's metrics answer it from get(). */
interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  /** As prom-client's buckets without exemplars: its JSON carries the field. */
  readonly exemplar?: null;
}

/** What prom-client's registry reads of a metric when it is scraped. */
export interface HistogramSnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: readonly Sample[];
}

/**
 * A Prometheus histogram without labels whose observation is a few additions: a bucket count,
 * the sum and the count, kept in plain numbers and read when the registry is scraped. The
 * request path observes every Redis command; prom-client's Histogram hashes a label set and
 * allocates on each observation, a measurable share of a lone decision's CPU. The exposition is
 * prom-client's own (the registry formats what get() answers, as for its Histogram).
 */
export class BulkHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    this.counts = new Float64Array(upperBounds.length);
    // prom-client's registry takes any metric that answers get() in its shape.
    registry.registerMetric(this as never);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.counts[i]++;
        return;
      }
    }
  }

  get(): Promise<HistogramSnapshot> {
    const bucket = `${this.name}_bucket`;
    const values: Sample[] = [];
    let cumulative = 0;
    this.upperBounds.forEach((le, i) => {
      cumulative += this.counts[i];
      values.push({ metricName: bucket, labels: { le }, value: cumulative, exemplar: null });
    });
    values.push(
      { metricName: bucket, labels: { le: '+Inf' }, value: this.count, exemplar: null },
      { metricName: `${this.name}_sum`, labels: {}, value: this.sum },
      { metricName: `${this.name}_count`, labels: {}, value: this.count },
    );
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

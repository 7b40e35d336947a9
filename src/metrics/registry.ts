/**
 * A minimal Prometheus registry: counters and histograms with labels, gauges read at scrape time, rendered in
 * the text exposition format (version 0.0.4). Enough for one process's metrics without a dependency.
 */

type Labels<L extends string = string> = Readonly<Record<L, string>>;

interface Metric {
  render(): string[];
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  return `{${pairs.map(([name, value]) => `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`).join(",")}}`;
}

/**
 * A metric's series, found by walking one map level per declared label name. Every API request is timed, so
 * finding its series must cost a few map lookups, not building a key string from the labels.
 */
class SeriesTable<L extends string, S> {
  private readonly root = new Map<string, unknown>();
  private readonly all: S[] = [];

  constructor(
    private readonly labelNames: readonly L[],
    private readonly create: (labels: Labels<L>) => S,
  ) {}

  get(labels: Labels<L>): S {
    const names = this.labelNames;
    if (names.length === 0) return (this.root.get("") as S | undefined) ?? this.add("", this.root, labels);
    let level = this.root;
    for (let i = 0; i < names.length - 1; i++) {
      const value = labels[names[i]!];
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = labels[names[names.length - 1]!];
    return (level.get(last) as S | undefined) ?? this.add(last, level, labels);
  }

  values(): readonly S[] {
    return this.all;
  }

  private add(value: string, level: Map<string, unknown>, labels: Labels<L>): S {
    const kept = {} as Record<L, string>;
    for (const name of this.labelNames) kept[name] = labels[name];
    const series = this.create(kept);
    level.set(value, series);
    this.all.push(series);
    return series;
  }
}

export class Counter<L extends string = never> implements Metric {
  private readonly series: SeriesTable<L, { labels: Labels<L>; value: number }>;

  constructor(
    readonly name: string,
    private readonly help: string,
    labelNames: readonly L[] = [],
  ) {
    this.series = new SeriesTable(labelNames, (labels) => ({ labels, value: 0 }));
  }

  inc(labels: Labels<L>, by = 1): void {
    this.series.get(labels).value += by;
  }

  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...this.series.values().map((s) => `${this.name}${labelText(s.labels)} ${s.value}`),
    ];
  }
}

/** A gauge whose series are read when scraped (e.g. a count from the store). */
export class CallbackGauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly read: () => { labels: Labels; value: number }[],
  ) {}

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, ...this.read().map((s) => `${this.name}${labelText(s.labels)} ${s.value}`)];
  }
}

export class Histogram<L extends string = never> implements Metric {
  private readonly series: SeriesTable<L, { labels: Labels<L>; buckets: number[]; sum: number; count: number }>;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: readonly number[],
    labelNames: readonly L[] = [],
  ) {
    this.series = new SeriesTable(labelNames, (labels) => ({ labels, buckets: bounds.map(() => 0), sum: 0, count: 0 }));
  }

  observe(labels: Labels<L>, value: number): void {
    const entry = this.series.get(labels);
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) entry.buckets[i]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.bounds.forEach((bound, i) => {
        lines.push(`${this.name}_bucket${labelText(s.labels, ["le", String(bound)])} ${s.buckets[i]}`);
      });
      lines.push(`${this.name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];

  add<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }

  /** The text exposition of every metric. */
  render(): string {
    return `${this.metrics.flatMap((metric) => metric.render()).join("\n")}\n`;
  }
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

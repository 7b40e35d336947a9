import { monotonicNow } from "../core/clock.ts";

/**
 * A running crawl's rate over the last ~30 s, from the samples its views and polls take, not the average since it
 * started (which falls all crawl long after a fast start). In memory, bounded.
 */

/** Pages parsed and targets checked per second over the window. */
export interface Rates {
  pagesPerSecond: number;
  targetsPerSecond: number;
  /** Seconds the rates were measured over. */
  overSeconds: number;
}

interface Sample {
  at: number;
  pages: number;
  targets: number;
}

const WINDOW_MS = 30_000;
/** Shorter than this, a rate says more about batch timing than about the crawl. */
const MIN_SPAN_MS = 4_000;
const MIN_GAP_MS = 1_000;
const MAX_SAMPLES = 64;
const MAX_CRAWLS = 64;

export class RecentRates {
  private readonly samples = new Map<string, Sample[]>();

  /**
   * Records where crawl `id` stands now and returns its rates over the window, or null until it has been
   * watched for a few seconds.
   */
  observe(id: string, pages: number, targets: number, now = monotonicNow()): Rates | null {
    let list = this.samples.get(id);
    if (list === undefined) {
      if (this.samples.size >= MAX_CRAWLS) this.samples.delete(this.samples.keys().next().value!);
      list = [];
      this.samples.set(id, list);
    }
    const last = list.at(-1);
    if (last === undefined || now - last.at >= MIN_GAP_MS) list.push({ at: now, pages, targets });
    // Keep one sample older than the window, so the window is measured whole.
    while (list.length > 2 && (now - list[1]!.at >= WINDOW_MS || list.length > MAX_SAMPLES)) list.shift();
    const base = list[0]!;
    const span = now - base.at;
    if (span < MIN_SPAN_MS) return null;
    const perSecond = (delta: number) => Math.max(0, delta) / (span / 1000);
    return { pagesPerSecond: perSecond(pages - base.pages), targetsPerSecond: perSecond(targets - base.targets), overSeconds: Math.round(span / 1000) };
  }

  /** Drops what is kept of a crawl that ended. */
  forget(id: string): void {
    this.samples.delete(id);
  }
}

/**
 * A crawl worker thread's entry point. Protocol: `start`/`stop` in; `started`, `progress` per batch, and one
 * `ended` per crawl, sent only after the final state is written and the store connection closed.
 */
import { setPriority, getPriority } from "node:os";
import type { JobEnd, StopReason } from "../core/crawl-life.ts";
import { executeCrawlJob, type CrawlJobSettings } from "./crawl-job.ts";
import type { CrawlProgress } from "./crawl.ts";

/** Messages from the pool. */
export type ToWorker = { type: "start"; crawlId: string; settings: CrawlJobSettings } | { type: "stop"; reason: StopReason };

/** Messages to the pool. */
export type FromWorker = { type: "started" } | { type: "ended"; end: JobEnd } | { type: "progress"; progress: CrawlProgress };

declare const self: Worker;

/**
 * Gives this thread (on Linux the nice value is per thread, and 0 names the calling one) the configured
 * nice value, never a higher priority than it has. Where that fails, the crawl runs at the service's priority.
 */
function lowerPriority(nice: number): void {
  try {
    if (nice > getPriority(0)) setPriority(0, nice);
  } catch {
    // not permitted or not supported here: nothing to lower
  }
}

/** Stops the crawl running now; null while idle (a `stop` that arrives after its crawl ended has nothing to stop). */
let current: AbortController | null = null;

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "stop") {
    current?.abort(message.reason);
    return;
  }
  lowerPriority(message.settings.crawler.nice);
  const job = new AbortController();
  current = job;
  self.postMessage({ type: "started" } satisfies FromWorker);
  const onProgress = (progress: CrawlProgress) => self.postMessage({ type: "progress", progress } satisfies FromWorker);
  const ended = (reply: FromWorker) => {
    current = null;
    // The crawl's garbage goes now, not whenever the next crawl fills the heap: an idle worker stays small.
    Bun.gc(true);
    self.postMessage(reply);
  };
  executeCrawlJob(message.crawlId, message.settings, { signal: job.signal, onProgress }).then(
    (end) => ended({ type: "ended", end }),
    (error: unknown) => ended({ type: "ended", end: { kind: "crashed", error: String(error) } }),
  );
};

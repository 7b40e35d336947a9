/**
 * Entry point of a crawl worker thread (crawler/pool.ts starts one per running crawl). It speaks a tiny
 * protocol: the pool sends `start` once and may send `stop`; the worker sends `progress` after each written batch
 * and `ended` once, after the job has written its final state and closed its store connection.
 */
import { setPriority, getPriority } from "node:os";
import { executeCrawlJob, type CrawlJobEnd, type CrawlJobSettings } from "./crawl-job.ts";
import type { StopReason } from "./crawl.ts";
import type { CrawlProgress } from "../metrics/service-metrics.ts";

/** Messages from the pool. */
export type ToWorker = { type: "start"; crawlId: string; settings: CrawlJobSettings } | { type: "stop"; reason: StopReason };

/** Messages to the pool. */
export type FromWorker =
  | { type: "ended"; end: CrawlJobEnd }
  | { type: "crashed"; message: string }
  | { type: "progress"; progress: CrawlProgress };

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

const stop = new AbortController();

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "stop") {
    stop.abort(message.reason);
    return;
  }
  lowerPriority(message.settings.crawler.nice);
  const onProgress = (progress: CrawlProgress) => self.postMessage({ type: "progress", progress } satisfies FromWorker);
  executeCrawlJob(message.crawlId, message.settings, { signal: stop.signal, onProgress }).then(
    (end) => self.postMessage({ type: "ended", end } satisfies FromWorker),
    (error: unknown) => self.postMessage({ type: "crashed", message: String(error) } satisfies FromWorker),
  );
};

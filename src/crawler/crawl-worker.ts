/**
 * Entry point of a crawl worker thread (crawler/pool.ts starts one per running crawl). It speaks a tiny
 * protocol: the pool sends `start` once and may send `stop`; the worker sends `progress` after each written batch
 * and `ended` once, after the job has written its final state and closed its store connection.
 */
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

const stop = new AbortController();

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "stop") {
    stop.abort(message.reason);
    return;
  }
  const onProgress = (progress: CrawlProgress) => self.postMessage({ type: "progress", progress } satisfies FromWorker);
  executeCrawlJob(message.crawlId, message.settings, { signal: stop.signal, onProgress }).then(
    (end) => self.postMessage({ type: "ended", end } satisfies FromWorker),
    (error: unknown) => self.postMessage({ type: "crashed", message: String(error) } satisfies FromWorker),
  );
};

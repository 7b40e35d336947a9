/**
 * Entry point of a crawl worker thread (crawler/pool.ts starts one per running crawl). It speaks a tiny
 * protocol: the pool sends `start` once and may send `stop`; the worker answers `ended` once, after the job
 * has written its final state and closed its store connection.
 */
import { executeCrawlJob, type CrawlJobEnd, type CrawlJobSettings } from "./crawl-job.ts";
import type { StopReason } from "./crawl.ts";

/** Messages from the pool. */
export type ToWorker = { type: "start"; crawlId: string; settings: CrawlJobSettings } | { type: "stop"; reason: StopReason };

/** Messages to the pool. */
export type FromWorker = { type: "ended"; end: CrawlJobEnd } | { type: "crashed"; message: string };

declare const self: Worker;

const stop = new AbortController();

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "stop") {
    stop.abort(message.reason);
    return;
  }
  executeCrawlJob(message.crawlId, message.settings, { signal: stop.signal }).then(
    (end) => self.postMessage({ type: "ended", end } satisfies FromWorker),
    (error: unknown) => self.postMessage({ type: "crashed", message: String(error) } satisfies FromWorker),
  );
};

import type { Logger } from "../core/logger.ts";
import type { Resolve } from "../net/resolve.ts";
import type { CrawlsRepo } from "../store/crawls.repo.ts";
import { executeCrawlJob, type CrawlJobEnd, type CrawlJobSettings } from "./crawl-job.ts";
import type { FromWorker, ToWorker } from "./crawl-worker.ts";
import type { StopReason } from "./crawl.ts";
import { untilAborted } from "../core/until-aborted.ts";
import type { CrawlProgress } from "../metrics/service-metrics.ts";

/**
 * The crawl pool: up to `size` crawls at once, each in a worker thread of its own, so the API thread never
 * fetches or parses. The store is the queue: crawls left `running` by a stopped process resume first, then
 * pending ones start oldest first as slots free up. A crawl is held by at most one job of this process.
 */

/** A crawl job in progress, however it runs. */
interface RunningJob {
  stop(reason: StopReason): void;
  /** Ends the job at once, mid-batch if need be (its open transaction rolls back). */
  kill(): void;
  done: Promise<CrawlJobEnd | { crashed: string }>;
}

export interface CrawlPoolOptions {
  size: number;
  settings: CrawlJobSettings;
  repo: CrawlsRepo;
  logger: Logger;
  /**
   * Run jobs in this thread instead of worker threads. Used where a resolver function must reach the crawler
   * (tests that make names resolve to chosen addresses), which cannot cross a thread boundary.
   */
  inline?: { resolve?: Resolve };
  /** Called after a crawl starts or ends (its webhook deliveries are queued then). */
  onTransition?: () => void;
  /** Called with what a crawl checked since its last report (metrics). */
  onProgress?: (progress: CrawlProgress) => void;
}

/** The error a crawl ends with when its job died. */
/** Wait before trying again when the store refused to hand out a crawl. */
const FILL_RETRY_MS = 1_000;

export const CRASHED_ERROR = "internal error: the crawl stopped unexpectedly; see the server log";

/**
 * Where the worker's code is. In a compiled binary modules live under /$bunfs/root, and a relative path names an
 * entrypoint bundled next to main.ts (scripts/build.ts adds it); from source, it is the file beside this one.
 */
function workerEntry(): string {
  return import.meta.url.includes("/$bunfs/") ? "./crawler/crawl-worker.ts" : new URL("./crawl-worker.ts", import.meta.url).href;
}

export class CrawlPool {
  private readonly jobs = new Map<string, RunningJob>();
  private started = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;

  constructor(private readonly options: CrawlPoolOptions) {}

  /** Starts resumed and pending crawls; until then `wake` only records that there is work. */
  start(): void {
    this.started = true;
    this.fill();
  }

  /** There may be a new pending crawl. */
  wake(): void {
    if (this.started) this.fill();
  }

  /** Stops working on a crawl the service has already marked as cancelled. */
  cancel(crawlId: string): void {
    this.jobs.get(crawlId)?.stop("cancelled");
  }

  /** Crawls held by this pool right now. */
  get active(): string[] {
    return [...this.jobs.keys()];
  }

  /**
   * Checkpoints every running crawl (they stay `running` and resume on the next start) and waits for the jobs.
   * Jobs still busy when `deadline` aborts are killed: their last batch rolls back and is redone on resume.
   */
  async stop(deadline?: AbortSignal): Promise<void> {
    this.stopping = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    const jobs = [...this.jobs.values()];
    for (const job of jobs) job.stop("shutdown");
    const finished = await untilAborted(Promise.all(jobs.map((job) => job.done)), deadline);
    if (!finished) for (const job of this.jobs.values()) job.kill();
  }

  private fill(): void {
    try {
      while (!this.stopping && this.jobs.size < this.options.size) {
        const crawlId = this.nextCrawl();
        if (crawlId === undefined) return;
        this.launch(crawlId);
      }
    } catch (error) {
      // The store is busy or failing: nothing is lost (pending crawls wait in it); try again shortly.
      this.options.logger.error("crawl pool could not start a crawl", { error: String(error) });
      if (this.retryTimer === null) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.fill();
        }, FILL_RETRY_MS);
      }
    }
  }

  private nextCrawl(): string | undefined {
    const orphan = this.options.repo.runningIds().find((id) => !this.jobs.has(id));
    return orphan ?? this.options.repo.claimNextPending(new Date().toISOString())?.id;
  }

  private launch(crawlId: string): void {
    const job = this.options.inline ? this.inlineJob(crawlId, this.options.inline.resolve) : this.workerJob(crawlId);
    this.jobs.set(crawlId, job);
    this.options.onTransition?.();
    void job.done.then((end) => {
      this.jobs.delete(crawlId);
      // While stopping, a job that dies (or is killed at the deadline) leaves its crawl running to resume.
      if (typeof end === "object" && !this.stopping) {
        this.options.logger.error("crawl job crashed", { crawl_id: crawlId, error: end.crashed });
        try {
          this.options.repo.finish(crawlId, { status: "failed", error: CRASHED_ERROR, now: new Date().toISOString() });
        } catch (error) {
          // Left running, it resumes on the next start.
          this.options.logger.error("could not record a crashed crawl", { crawl_id: crawlId, error: String(error) });
        }
      }
      this.options.onTransition?.();
      this.fill();
    });
  }

  private inlineJob(crawlId: string, resolve: Resolve | undefined): RunningJob {
    const controller = new AbortController();
    const done = executeCrawlJob(crawlId, this.options.settings, {
      signal: controller.signal,
      resolve,
      logger: this.options.logger,
      onProgress: this.options.onProgress,
    }).catch(
      (error: unknown) => ({ crashed: String(error) }),
    );
    // An inline job shares this thread: once aborted it ends at its next await; nothing more can be forced.
    return { stop: (reason) => controller.abort(reason), kill: () => controller.abort("shutdown"), done };
  }

  private workerJob(crawlId: string): RunningJob {
    const worker = new Worker(workerEntry(), { smol: true });
    let settle!: (end: CrawlJobEnd | { crashed: string }) => void;
    const done = new Promise<CrawlJobEnd | { crashed: string }>((resolve) => {
      settle = (end) => {
        resolve(end);
        worker.terminate();
      };
    });
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type === "progress") this.options.onProgress?.(message.progress);
      else settle(message.type === "ended" ? message.end : { crashed: message.message });
    };
    worker.onerror = (event) => settle({ crashed: event.message });
    // A worker that exits without a word (killed thread, fatal error) ends its crawl rather than leaving it held.
    worker.addEventListener("close", () => settle({ crashed: "the worker thread exited" }));
    const send = (message: ToWorker) => worker.postMessage(message);
    send({ type: "start", crawlId, settings: this.options.settings });
    return { stop: (reason) => send({ type: "stop", reason }), kill: () => settle({ crashed: "killed at shutdown" }), done };
  }
}

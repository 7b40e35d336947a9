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
 *
 * Worker threads are kept between crawls, at most `size` of them: Bun does not give back all of a worker's
 * memory when it is terminated, and a service that started a worker per crawl grew by ~0.5 MiB per crawl of a
 * 1,000-page site and several MiB per 50,000-page one, with no end in sight (bench/README.md, "Memory"). A
 * worker is terminated only when it died, its job threw or was killed, or the pool stops; idle, it keeps no
 * process alive. A kept worker that dies before it has taken up its next crawl (a fault left over from the
 * crawl before) does not fail that crawl: it stays running and starts again on a new worker.
 *
 * A crawl whose job ends while the crawl is still `running` in the store (paused by a full disk, or crashed
 * with its failure unrecordable) waits before it is taken up again, longer each time (RETRY_DELAYS_MS): retried
 * at once, it would start, fail and start again several times a second, each time on a new thread.
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

/** Wait before trying again when the store refused to hand out a crawl. */
const FILL_RETRY_MS = 1_000;
/** Waits before a crawl left running by its job is taken up again, one step further each time. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 60_000, 300_000];

/** The error a crawl ends with when its job died. */
export const CRASHED_ERROR = "internal error: the crawl stopped unexpectedly; see the server log";

/**
 * Where the worker's code is. In a compiled binary modules live under /$bunfs/root, and a relative path names an
 * entrypoint bundled next to main.ts (scripts/build.ts adds it); from source, it is the file beside this one.
 */
function workerEntry(): string {
  return import.meta.url.includes("/$bunfs/") ? "./crawler/crawl-worker.ts" : new URL("./crawl-worker.ts", import.meta.url).href;
}

/** A worker thread of the pool, and what to tell the job it runs (null while idle). */
interface PooledWorker {
  /** Bun's Worker, which has Node's ref/unref (the DOM typing of `Worker` does not). */
  worker: Worker & Pick<Bun.Worker, "ref" | "unref">;
  job: { onMessage(message: FromWorker): void; onExit(why: string): void } | null;
}

export class CrawlPool {
  private readonly jobs = new Map<string, RunningJob>();
  private readonly idleWorkers: PooledWorker[] = [];
  private started = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;
  /** Why the last attempt to start crawls failed; null once one succeeds. */
  private fillFailure: string | null = null;
  /** Crawls left running by their last job: when they may be taken up again, and how often they were. */
  private readonly waiting = new Map<string, { until: number; attempts: number; timer: ReturnType<typeof setTimeout> }>();

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

  /**
   * Why `crawlId` cannot make progress now, or null: it waits to be taken up again after its job left it
   * running (a full disk, a crash), or the store refuses to hand out crawls at all.
   */
  stalled(crawlId: string): string | null {
    if (this.waiting.has(crawlId)) return "its crawl job could not write to the store";
    return this.fillFailure;
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
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    const jobs = [...this.jobs.values()];
    for (const job of jobs) job.stop("shutdown");
    const finished = await untilAborted(Promise.all(jobs.map((job) => job.done)), deadline);
    if (!finished) for (const job of this.jobs.values()) job.kill();
    for (const pooled of this.idleWorkers.splice(0)) pooled.worker.terminate();
  }

  private fill(): void {
    try {
      while (!this.stopping && this.jobs.size < this.options.size) {
        const crawlId = this.nextCrawl();
        this.fillFailure = null;
        if (crawlId === undefined) return;
        this.launch(crawlId);
      }
    } catch (error) {
      this.fillFailure = `the store refused to start a crawl: ${String(error)}`;
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
    const now = Date.now();
    const orphan = this.options.repo.runningIds().find((id) => !this.jobs.has(id) && (this.waiting.get(id)?.until ?? 0) <= now);
    return orphan ?? this.options.repo.claimNextPending(new Date().toISOString())?.id;
  }

  private launch(crawlId: string): void {
    const job = this.options.inline ? this.inlineJob(crawlId, this.options.inline.resolve) : this.workerJob(crawlId);
    this.jobs.set(crawlId, job);
    this.options.onTransition?.();
    void job.done.then((end) => {
      this.jobs.delete(crawlId);
      let leftRunning = end === "paused";
      // While stopping, a job that dies (or is killed at the deadline) leaves its crawl running to resume.
      if (typeof end === "object" && !this.stopping) {
        this.options.logger.error("crawl job crashed", { crawl_id: crawlId, error: end.crashed });
        try {
          this.options.repo.finish(crawlId, { status: "failed", error: CRASHED_ERROR, failure: "internal", warnings: [], now: new Date().toISOString() });
        } catch (error) {
          leftRunning = true;
          this.options.logger.error("could not record a crashed crawl; it will be taken up again later", { crawl_id: crawlId, error: String(error) });
        }
      }
      if (leftRunning && !this.stopping) this.waitBeforeRetry(crawlId);
      else this.forgetWaiting(crawlId);
      this.options.onTransition?.();
      this.fill();
    });
  }

  /** Keeps `crawlId` from being taken up again until its next delay has passed. */
  private waitBeforeRetry(crawlId: string): void {
    const previous = this.waiting.get(crawlId);
    if (previous !== undefined) clearTimeout(previous.timer);
    const attempts = (previous?.attempts ?? 0) + 1;
    const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
    const timer = setTimeout(() => this.fill(), delay);
    timer.unref?.();
    this.waiting.set(crawlId, { until: Date.now() + delay, attempts, timer });
    this.options.logger.warn("crawl left running; taken up again later", { crawl_id: crawlId, retry_in_ms: delay });
  }

  private forgetWaiting(crawlId: string): void {
    const entry = this.waiting.get(crawlId);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.waiting.delete(crawlId);
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
    const { pooled, reused } = this.takeWorker();
    let started = false;
    // This job's hold on the worker; once settled the worker may already run another crawl, which this job's
    // late calls (a cancel or a kill racing its end) must not touch.
    let settle!: (end: CrawlJobEnd | { crashed: string }, keepWorker: boolean) => void;
    const holds = () => pooled.job === handlers;
    const handlers: NonNullable<PooledWorker["job"]> = {
      onMessage: (message) => {
        started = true;
        if (message.type === "started") return;
        if (message.type === "progress") this.options.onProgress?.(message.progress);
        // A job that threw is reported, and the thread that ran it is not trusted with another.
        else if (message.type === "ended") settle(message.end, true);
        else settle({ crashed: message.message }, false);
      },
      onExit: (why) => {
        if (reused && !started) {
          // Nothing of this crawl ran; "stopped" leaves it running, and fill() takes it up on a new worker.
          this.options.logger.warn("a kept crawl worker died before taking up its crawl; starting the crawl again", { crawl_id: crawlId, error: why });
          settle("stopped", false);
        } else settle({ crashed: why }, false);
      },
    };
    const done = new Promise<CrawlJobEnd | { crashed: string }>((resolve) => {
      settle = (end, keepWorker) => {
        if (!holds()) return;
        pooled.job = null;
        if (keepWorker && !this.stopping) this.returnWorker(pooled);
        else pooled.worker.terminate();
        resolve(end);
      };
    });
    pooled.job = handlers;
    const send = (message: ToWorker) => pooled.worker.postMessage(message);
    send({ type: "start", crawlId, settings: this.options.settings });
    return {
      stop: (reason) => {
        if (holds()) send({ type: "stop", reason });
      },
      kill: () => settle({ crashed: "killed at shutdown" }, false),
      done,
    };
  }

  /** An idle worker of the pool, or a new one. */
  private takeWorker(): { pooled: PooledWorker; reused: boolean } {
    const idle = this.idleWorkers.pop();
    if (idle !== undefined) {
      idle.worker.ref();
      return { pooled: idle, reused: true };
    }
    const pooled: PooledWorker = { worker: new Worker(workerEntry(), { smol: true }) as PooledWorker["worker"], job: null };
    pooled.worker.onmessage = (event: MessageEvent<FromWorker>) => pooled.job?.onMessage(event.data);
    const exited = (why: string) => {
      pooled.job?.onExit(why);
      const at = this.idleWorkers.indexOf(pooled);
      if (at !== -1) this.idleWorkers.splice(at, 1);
    };
    pooled.worker.onerror = (event) => exited(event.message);
    // A worker that exits without a word (killed thread, fatal error) ends its crawl rather than leaving it held.
    pooled.worker.addEventListener("close", () => exited("the worker thread exited"));
    return { pooled, reused: false };
  }

  private returnWorker(pooled: PooledWorker): void {
    pooled.worker.unref();
    this.idleWorkers.push(pooled);
  }
}

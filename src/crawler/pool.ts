import { monotonicNow } from "../core/clock.ts";
import type { Logger } from "../core/logger.ts";
import type { Resolve } from "../net/resolve.ts";
import type { CrawlsRepo } from "../store/crawls.repo.ts";
import type { Db } from "../store/db.ts";
import { CRAWL_LEASE, LeaseLostError, LeasesRepo, type HeldLease, type Lease } from "../store/leases.repo.ts";
import { storeNow } from "../store/store-clock.ts";
import { executeCrawlJob, type CrawlJobSettings } from "./crawl-job.ts";
import { claimNextCrawl, failCrawl } from "./crawl-transitions.ts";
import { PooledWorker, type Assignment } from "./pooled-worker.ts";
import type { CrawlProgress } from "./crawl.ts";
import type { JobEnd, StopReason } from "../core/crawl-life.ts";
import { untilAborted } from "../core/until-aborted.ts";

/**
 * Up to `size` crawls at once, each in a worker thread, so the API thread never fetches or parses; the store is
 * the queue. Workers are kept between crawls because Bun does not give back a terminated worker's memory
 * (bench/README.md, "Memory"). A crawl still `running` after its job ended waits RETRY_DELAYS_MS before it is retried.
 */

/** A crawl job in progress, however it runs. */
interface RunningJob {
  /** The lease the crawl runs under (several nodes), or null. */
  lease: HeldLease | null;
  stop(reason: StopReason): void;
  /** Ends the job at once, mid-batch if need be (its open transaction rolls back). */
  kill(): void;
  done: Promise<JobEnd>;
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
  /**
   * Several nodes on one store: crawls are taken under a lease in the database (cluster/node-heartbeat.ts renews
   * them), running crawls no live node holds are taken up, and the store is looked at every `pollMs` for crawls
   * queued through another node. Null: this process is the store's only serve (the appliance).
   */
  cluster?: { db: Db; node: string; leaseMs: number; pollMs: number } | null;
  /** Called with what a crawl checked since its last report (metrics). */
  onProgress?: (progress: CrawlProgress) => void;
  /**
   * Null while the store's path still names the file the service opened; else why not. No crawl is handed out
   * meanwhile: its job would open the path anew and its writes would be lost (store/store-file.ts).
   */
  storeProblem?: () => string | null;
}

/** Wait before trying again when the store refused to hand out a crawl. */
const FILL_RETRY_MS = 1_000;
/** Waits before a crawl left running by its job is taken up again, one step further each time. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 60_000, 300_000];

/** The error a crawl ends with when its job died. */
export const CRASHED_ERROR = "internal error: the crawl stopped unexpectedly; see the server log";

export class CrawlPool {
  private readonly jobs = new Map<string, RunningJob>();
  /** The live worker threads, idle or holding a crawl (crawler/pooled-worker.ts); at most `size`. */
  private readonly workers = new Set<PooledWorker>();
  private started = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;
  /** Why the last attempt to start crawls failed; null once one succeeds. */
  private fillFailure: string | null = null;
  /** Crawls left running, not taken up before `until` (monotonic ms: a clock step must not stretch the wait), how often they were, and why. */
  private readonly waiting = new Map<string, { until: number; attempts: number; timer: ReturnType<typeof setTimeout>; reason: string }>();
  private version = 0;
  /** The fill under way, if any: fills never overlap (two would each claim a crawl for the same free slot). */
  private filling: Promise<void> | null = null;
  /** A fill was asked for while one ran: it runs again after it. */
  private fillAgain = false;
  /** Looks at the store for work every cluster.pollMs (several nodes). */
  private pollTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: CrawlPoolOptions) {}

  /** Starts resumed and pending crawls; until then `wake` only records that there is work. */
  start(): void {
    this.started = true;
    this.fill();
    const cluster = this.options.cluster;
    if (cluster != null) {
      this.pollTimer = setInterval(() => this.fill(), cluster.pollMs);
      this.pollTimer.unref();
    }
  }

  /**
   * The leases this node still holds, after a heartbeat: a crawl running here whose lease is not among them was
   * taken over by another node (this one went silent), and stops without writing more.
   */
  leasesHeld(held: readonly Lease[]): void {
    const fences = new Map(held.filter((lease) => lease.kind === CRAWL_LEASE).map((lease) => [lease.key, lease.fence]));
    for (const [crawlId, job] of this.jobs) {
      if (job.lease === null || fences.get(crawlId) === job.lease.fence) continue;
      this.options.logger.warn("crawl taken over by another node; stopping it here", { crawl_id: crawlId });
      job.stop("shutdown");
    }
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
   * running (a full disk, a crash), or the store refuses to hand out crawls at all. Held in memory: the store
   * that would record it is what refuses writes.
   */
  stalled(crawlId: string): string | null {
    const waiting = this.waiting.get(crawlId);
    // Taken up again meanwhile: it is trying, not waiting.
    if (waiting !== undefined && !this.jobs.has(crawlId)) return waiting.reason;
    return this.fillFailure;
  }

  /** Changes whenever what `stalled` says may have changed: answers made with it are kept under it (api/middleware/response-cache). */
  get stateVersion(): number {
    return this.version;
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
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    // A fill under way may be launching a crawl it claimed: wait for it (until the deadline), so that job is stopped below too.
    if (this.filling !== null) await untilAborted(this.filling, deadline);
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    const jobs = [...this.jobs.values()];
    for (const job of jobs) job.stop("shutdown");
    const finished = await untilAborted(Promise.all(jobs.map((job) => job.done)), deadline);
    if (!finished) for (const job of this.jobs.values()) job.kill();
    // Every job has ended or was killed: the workers left are idle, and none outlives the pool.
    for (const worker of [...this.workers]) worker.retire();
  }

  /** Starts crawls up to the pool's size, now or right after the fill under way. */
  private fill(): void {
    if (this.filling !== null) {
      this.fillAgain = true;
      return;
    }
    this.filling = this.fillWhileAsked();
  }

  /**
   * Fills until no fill was asked for meanwhile. The last look at `fillAgain` and letting go of `filling` happen in
   * one synchronous step: a wake between them would be lost, and on one node nothing else looks for pending crawls.
   */
  private async fillWhileAsked(): Promise<void> {
    try {
      // Bounded: each turn is a fill asked for during the previous one.
      do {
        this.fillAgain = false;
        try {
          await this.fillOnce();
        } catch (error) {
          this.options.logger.error("crawl pool could not start a crawl", { error: String(error) });
        }
      } while (this.fillAgain && !this.stopping);
    } finally {
      this.filling = null;
    }
  }

  private async fillOnce(): Promise<void> {
    const lost = this.options.storeProblem?.() ?? null;
    if (lost !== null) {
      if (this.fillFailure !== lost) this.options.logger.warn("crawl pool paused", { reason: lost });
      this.fillFailure = lost;
      this.retryFill();
      return;
    }
    try {
      while (!this.stopping && this.jobs.size < this.options.size) {
        const next = await this.nextCrawl();
        if (this.fillFailure !== null) this.version++;
        this.fillFailure = null;
        if (next === undefined) return;
        this.launch(next.id, next.lease);
      }
    } catch (error) {
      this.fillFailure = `the store refused to start a crawl: ${String(error)}`;
      this.version++;
      // The store is busy or failing: nothing is lost (pending crawls wait in it); try again shortly.
      this.options.logger.error("crawl pool could not start a crawl", { error: String(error) });
      this.retryFill();
    }
  }

  private retryFill(): void {
    if (this.retryTimer !== null || this.stopping) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.fill();
    }, FILL_RETRY_MS);
  }

  private async nextCrawl(): Promise<{ id: string; lease: HeldLease | null } | undefined> {
    const now = monotonicNow();
    const free = (id: string) => !this.jobs.has(id) && (this.waiting.get(id)?.until ?? 0) <= now;
    const cluster = this.options.cluster;
    if (cluster == null) {
      const orphan = (await this.options.repo.runningIds()).find(free);
      if (orphan !== undefined) return { id: orphan, lease: null };
      const claimed = await claimNextCrawl(this.options.repo, new Date().toISOString());
      return claimed === undefined ? undefined : { id: claimed.id, lease: null };
    }
    const leases = new LeasesRepo(cluster.db);
    // Crawls this node holds but runs no job for (its job paused while the database was out of reach): resumed
    // under the same lease, which the heartbeat kept alive.
    const own = (await leases.heldBy(cluster.node, CRAWL_LEASE)).find((lease) => free(lease.key));
    if (own !== undefined) return { id: own.key, lease: { kind: CRAWL_LEASE, key: own.key, node: cluster.node, fence: own.fence } };
    // Running crawls no live node holds (their node died or stopped): taken up with a new fence, so the old
    // holder's writes are refused from now on.
    for (const id of (await leases.unheldRunningCrawls(await storeNow(cluster.db), this.options.size * 4)).filter(free)) {
      const fence = await leases.claim(CRAWL_LEASE, id, cluster.node, cluster.leaseMs, await storeNow(cluster.db));
      if (fence !== null) return { id, lease: { kind: CRAWL_LEASE, key: id, node: cluster.node, fence } };
    }
    const claimed = await claimNextCrawl(this.options.repo, new Date().toISOString(), { node: cluster.node, leaseMs: cluster.leaseMs });
    return claimed === undefined ? undefined : { id: claimed.id, lease: claimed.lease };
  }

  private launch(crawlId: string, lease: HeldLease | null): void {
    const settings = lease === null ? this.options.settings : { ...this.options.settings, lease };
    const job = this.options.inline ? this.inlineJob(crawlId, settings, lease, this.options.inline.resolve) : this.workerJob(crawlId, settings, lease);
    this.jobs.set(crawlId, job);
    this.version++;
    this.options.onTransition?.();
    void job.done.then(async (end) => {
      const leftRunning = await this.settle(crawlId, end, lease);
      // The job leaves the pool once its crawl is settled, so a fill meanwhile does not take the crawl up again.
      this.jobs.delete(crawlId);
      this.version++;
      if (leftRunning !== null && !this.stopping) this.waitBeforeRetry(crawlId, leftRunning);
      else this.forgetWaiting(crawlId);
      this.options.onTransition?.();
      this.fill();
    });
  }

  /**
   * What the pool does about a job's end: a crashed job's crawl is failed (while stopping, a job that dies or is
   * killed at the deadline leaves its crawl running to resume). Why the crawl is left running and must wait, or null.
   */
  private async settle(crawlId: string, end: JobEnd, lease: HeldLease | null): Promise<string | null> {
    if (end.kind === "paused") return end.reason;
    // The crawl was no longer running when its job looked (ended or deleted elsewhere): its lease is nobody's work.
    if (end.kind === "gone" && lease !== null && this.options.cluster != null) {
      await new LeasesRepo(this.options.cluster.db).finish(lease.kind, lease.key, lease.node, lease.fence).catch(() => false);
    }
    if (end.kind !== "crashed" || this.stopping) return null;
    this.options.logger.error("crawl job crashed", { crawl_id: crawlId, error: end.error });
    try {
      await failCrawl(this.options.repo, crawlId, { kind: "failed", failure: "internal", error: CRASHED_ERROR }, { now: new Date().toISOString(), lease });
      return null;
    } catch (error) {
      if (error instanceof LeaseLostError) return null;
      this.options.logger.error("could not record a crashed crawl; it will be taken up again later", { crawl_id: crawlId, error: String(error) });
      return "its crawl job stopped unexpectedly and the store refused to record that";
    }
  }

  /** Keeps `crawlId` from being taken up again until its next delay has passed; `reason` says why it waits. */
  private waitBeforeRetry(crawlId: string, reason: string): void {
    const previous = this.waiting.get(crawlId);
    if (previous !== undefined) clearTimeout(previous.timer);
    const attempts = (previous?.attempts ?? 0) + 1;
    const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
    const timer = setTimeout(() => this.fill(), delay);
    timer.unref?.();
    this.waiting.set(crawlId, { until: monotonicNow() + delay, attempts, timer, reason });
    this.version++;
    this.options.logger.warn("crawl left running; taken up again later", { crawl_id: crawlId, retry_in_ms: delay });
  }

  private forgetWaiting(crawlId: string): void {
    const entry = this.waiting.get(crawlId);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.waiting.delete(crawlId);
    this.version++;
  }

  private inlineJob(crawlId: string, settings: CrawlJobSettings, lease: HeldLease | null, resolve: Resolve | undefined): RunningJob {
    const controller = new AbortController();
    const done = executeCrawlJob(crawlId, settings, {
      signal: controller.signal,
      resolve,
      logger: this.options.logger,
      onProgress: this.options.onProgress,
    }).catch((error: unknown): JobEnd => ({ kind: "crashed", error: String(error) }));
    // An inline job shares this thread: once aborted it ends at its next await; nothing more can be forced.
    return { lease, stop: (reason) => controller.abort(reason), kill: () => controller.abort("shutdown"), done };
  }

  private workerJob(crawlId: string, settings: CrawlJobSettings, lease: HeldLease | null): RunningJob {
    let end!: (end: JobEnd) => void;
    const done = new Promise<JobEnd>((resolve) => (end = resolve));
    const assignment: Assignment = { crawlId, end };
    const idle = [...this.workers].find((worker) => worker.idle);
    const worker = idle ?? this.newWorker();
    worker.start(assignment, settings, idle !== undefined);
    // The worker may run another crawl by the time these are called; it then ignores them.
    return { lease, stop: (reason) => worker.stop(assignment, reason), kill: () => worker.kill(assignment), done };
  }

  private newWorker(): PooledWorker {
    const worker = new PooledWorker({
      logger: this.options.logger,
      onProgress: this.options.onProgress,
      onDead: (dead) => this.workers.delete(dead),
    });
    this.workers.add(worker);
    return worker;
  }
}

import type { Database } from "bun:sqlite";
import type { Config } from "../config/schema.ts";
import { elapsedMs } from "../core/clock.ts";
import type { JobEnd, StopReason } from "../core/crawl-life.ts";
import { crawlGcRhythm } from "../core/gc-rhythm.ts";
import { createLogger, type Logger, type LogLevel } from "../core/logger.ts";
import { crawlerFetchOptions } from "../net/crawler-fetch-options.ts";
import type { Resolve } from "../net/resolve.ts";
import { CrawlsRepo } from "../store/crawls.repo.ts";
import type { Db } from "../store/db.ts";
import { openDatabase } from "../store/sqlite.ts";
import { SqliteDb } from "../store/sqlite-db.ts";
import { leasedFence } from "../store/crawl-fence.ts";
import { LeaseLostError, type HeldLease } from "../store/leases.repo.ts";
import { connectPostgres, postgresTarget } from "../store/postgres/connect.ts";
import { PostgresDb } from "../store/postgres/postgres-db.ts";
import { StoreFile, type FileIdentity } from "../store/store-file.ts";
import { runCrawl, type CrawlProgress } from "./crawl.ts";
import { judgeCrawlEnd, readEndFacts } from "./crawl-end.ts";
import { completeCrawl, failCrawl } from "./crawl-transitions.ts";
import { Frontier } from "./frontier.ts";
import { PageReuse } from "./page-reuse.ts";
import { DEFAULT_RETRY_POLICY } from "./retry.ts";
import { RobotsCache } from "./robots-cache.ts";
import { StatisticsRhythm } from "./statistics-rhythm.ts";
import { describeStoreWriteFailure, storeWriteFailure } from "../store/write-failure.ts";

/** One crawl job, on a worker thread or the calling thread; everything it needs arrives as plain data. */

/** What a job needs from the service's configuration; structured-clone safe. */
export interface CrawlJobSettings {
  dbPath: string;
  /**
   * The store file the service opened: the job opens that file or nothing, never a new store at the path, and
   * pauses as soon as the path names another file or none (store/store-file.ts).
   */
  storeFile?: FileIdentity;
  busyTimeoutMs: number;
  /** The store is `check`'s file of its own, deleted when it ends (runtime.ts `temporaryStore`). */
  temporaryStore?: boolean;
  /** The store is this PostgreSQL database (storage.url), not the file at `dbPath`: the job opens a small pool of its own. */
  storeUrl?: string | null;
  /** The lease this node took on the crawl (several nodes on one store): every write of the job is checked against it. */
  lease?: HeldLease | null;
  crawler: Config["crawler"];
  logLevel: LogLevel;
  /** The node's name, on every line the job logs. */
  nodeName?: string;
}

export interface CrawlJobHooks {
  signal: AbortSignal;
  resolve?: Resolve;
  logger?: Logger;
  onProgress?: (progress: CrawlProgress) => void;
}

function describeDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1_000} s`;
}

/** The error a crawl that ran out of time ends with. */
export function maxDurationError(maxDurationMs: number): string {
  return `crawl exceeded its maximum duration of ${describeDuration(maxDurationMs)} (crawler.max_duration)`;
}

/**
 * The job's own store connection. NORMAL sync (a power cut costs batches re-fetched on resume, never consistency)
 * and no foreign-key lookups: its rows point at its own running crawl, which is never deleted.
 */
export function openJobDatabase(settings: Pick<CrawlJobSettings, "dbPath" | "storeFile" | "busyTimeoutMs" | "temporaryStore">): Database {
  const { dbPath, busyTimeoutMs, temporaryStore: temporary, storeFile: expect } = settings;
  return openDatabase(dbPath, { busyTimeoutMs, temporary, expect, synchronous: "NORMAL", foreignKeys: false });
}

/** A job's store: its own connection (or small pool), as the Db every repo of the job writes through. */
export interface JobStore {
  db: Db;
  close(): Promise<void>;
}

/** Opens the job's own connection to the store: the SQLite file, or a pool of two to the PostgreSQL database. */
export async function openJobStore(
  settings: Pick<CrawlJobSettings, "dbPath" | "storeFile" | "busyTimeoutMs" | "temporaryStore" | "storeUrl">,
): Promise<JobStore> {
  if (settings.storeUrl != null) {
    // Two: a batch holds one for its transaction while a read of the run (page reuse) may need the other.
    const sql = await connectPostgres(settings.storeUrl, { bigint: true, max: 2 });
    return { db: new PostgresDb(sql), close: () => sql.close() };
  }
  const sqlite = openJobDatabase(settings);
  return { db: new SqliteDb(sqlite), close: async () => sqlite.close() };
}

/**
 * Runs crawl `crawlId` (already marked running) until it ends or `hooks.signal` stops it. A store that refuses
 * writes (a full disk, its file deleted, moved or replaced) pauses the crawl: it stays running with everything
 * committed so far, to resume later.
 */
export async function executeCrawlJob(crawlId: string, settings: CrawlJobSettings, hooks: CrawlJobHooks): Promise<JobEnd> {
  const logger = hooks.logger ?? createLogger(settings.logLevel, undefined, settings.nodeName === undefined ? {} : { node: settings.nodeName });
  try {
    return await runCrawlJob(crawlId, settings, hooks, logger);
  } catch (error) {
    // Another node took the crawl over (this one went silent): it is that node's to end.
    if (error instanceof LeaseLostError) {
      logger.warn("crawl given up: another node took it over", { crawl_id: crawlId });
      return { kind: "stopped" };
    }
    const failure = storeWriteFailure(error);
    if (failure === null) throw error;
    const reason = describeStoreWriteFailure(failure, settings.storeUrl == null ? settings.dbPath : postgresTarget(settings.storeUrl).shown);
    logger.warn("crawl paused: the store refused a write", { crawl_id: crawlId, reason });
    return { kind: "paused", reason };
  }
}

async function runCrawlJob(crawlId: string, settings: CrawlJobSettings, hooks: CrawlJobHooks, logger: Logger): Promise<JobEnd> {
  const store = await openJobStore(settings);
  const gc = crawlGcRhythm();
  const storeFile = settings.storeFile === undefined ? null : new StoreFile(settings.dbPath, settings.storeFile);
  // Aborted at the first batch written after the store's file was lost; the crawl then pauses (below).
  const stop = new AbortController();
  const forwardStop = () => stop.abort(hooks.signal.reason);
  hooks.signal.addEventListener("abort", forwardStop, { once: true });
  if (hooks.signal.aborted) forwardStop();
  try {
    const crawls = new CrawlsRepo(store.db);
    const crawl = await crawls.findById(crawlId);
    if (crawl === undefined || crawl.status !== "running") return { kind: "gone" };
    const { crawler } = settings;
    // max_duration counts from started_at on the wall clock, the only reading that survives a restart; a clock
    // stepped back past started_at counts as no time spent, never as time gained (at most max_duration from here).
    // Within this run the deadline is a timer, which no clock step moves.
    const startedAt = Date.parse(crawl.started_at ?? new Date().toISOString());
    // crawler.headers (a staging site's auth) go to the crawled site only, never to the hosts it links to.
    const fetchOptions = { ...crawlerFetchOptions(crawler, hooks.resolve), headersOrigin: new URL(crawl.root_url).origin };
    logger.info("crawl running", { crawl_id: crawlId, domain: crawl.domain_name });
    const statistics = new StatisticsRhythm(store.db, (error) =>
      logger.warn("could not refresh the planner's statistics of the crawl's tables", { crawl_id: crawlId, error: String(error) }),
    );

    const run = await runCrawl(
      {
        crawlId,
        rootUrl: crawl.root_url,
        options: crawl.options,
        ignoreRules: crawl.ignore_rules,
        timeLeftMs: crawler.max_duration - elapsedMs(startedAt, Date.now()),
      },
      {
        frontier: new Frontier(store.db, settings.lease == null ? {} : { fence: leasedFence(settings.lease) }),
        check: {
          fetch: fetchOptions,
          maxLinksPerPage: crawler.max_links_per_page,
          acceptStatus: new Set(crawler.accept_status),
          retry: DEFAULT_RETRY_POLICY,
          // `check`'s store goes with its run: no later crawl reads what its pages were.
          recordPages: settings.temporaryStore !== true,
          reuse: settings.temporaryStore === true ? null : await PageReuse.forCrawl(store.db, crawls, crawl),
        },
        robots: crawler.respect_robots ? new RobotsCache(fetchOptions, crawler.user_agent) : null,
        concurrency: crawler.concurrency,
        perHost: crawler.per_host_concurrency,
        limits: { maxPages: crawler.max_pages, maxDepth: crawler.max_depth },
        logger,
        gc,
        signal: stop.signal,
        onProgress: (progress) => {
          hooks.onProgress?.(progress);
          statistics.pagesWritten(progress.pages);
          if (storeFile?.problem() != null) stop.abort("shutdown" satisfies StopReason);
        },
      },
    );
    // Nothing is ended (and no event queued for the webhooks) in a file that is no longer the store.
    storeFile?.assertSame();
    // Before the crawl's end is judged and its links listed: a crawl fills its tables faster than autovacuum analyzes them.
    if (run.kind === "finished") await statistics.atEnd();
    else await statistics.settled();
    const end = run.kind === "finished" ? judgeCrawlEnd(await readEndFacts(crawls, crawlId)) : stoppedEnd(run.reason, crawler.max_duration);
    const at = { now: new Date().toISOString(), soft404Judged: run.soft404Judged, lease: settings.lease };
    if (end.kind === "completed") {
      await completeCrawl(crawls, crawlId, at);
      logger.info("crawl completed", { crawl_id: crawlId });
    } else if (end.kind === "failed") {
      await failCrawl(crawls, crawlId, end, at);
      logger.warn("crawl failed", { crawl_id: crawlId, reason: end.failure, error: end.error });
    } else logger.info("crawl stopped", { crawl_id: crawlId, reason: end.kind });
    return end;
  } finally {
    hooks.signal.removeEventListener("abort", forwardStop);
    await store.close();
  }
}

/** What a run stopped for `reason` means for its crawl: a cancel was already ended by the service; a shutdown leaves it to resume. */
function stoppedEnd(reason: StopReason, maxDurationMs: number): JobEnd {
  switch (reason) {
    case "cancelled":
      return { kind: "cancelled" };
    case "shutdown":
      return { kind: "stopped" };
    case "max_duration":
      return { kind: "failed", failure: "max_duration", error: maxDurationError(maxDurationMs) };
  }
}

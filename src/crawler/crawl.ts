import { monotonicNow } from "../core/clock.ts";
import { OPTION_OF_KIND } from "../core/crawl-option-table.ts";
import type { StopReason } from "../core/crawl-life.ts";
import type { CrawlGcRhythm } from "../core/gc-rhythm.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { noIgnoreRules, type IgnoreRules } from "../core/ignore-rules.ts";
import type { Logger } from "../core/logger.ts";
import type { NoAnswerReason } from "../core/link-outcome.ts";
import { CrawlEndedError } from "../store/crawl-fence.ts";
import { LeaseLostError } from "../store/leases.repo.ts";
import type { FrontierTarget } from "../store/frontier.repo.ts";
import { checkTarget, type CheckContext } from "./check-target.ts";
import type { ParsedPage } from "./readers/content-reader.ts";
import { uncheckableVerdict } from "./classify.ts";
import type { FoundLink, Frontier, FrontierResult, PageLimits } from "./frontier.ts";
import { checkFragments } from "./fragment-check.ts";
import { fragmentsToJudge, recordedFragment } from "./fragments.ts";
import { HostLimiter } from "./host-limiter.ts";
import { IgnoreGate } from "./ignore-gate.ts";
import { isInternal, type SiteOrigin } from "./normalize.ts";
import type { RobotsCache } from "./robots-cache.ts";
import { recordSitemapEntries } from "./sitemap-phase.ts";
import { NotFoundProbe } from "./soft-404.ts";

/**
 * One crawl, start to end: the short orchestrator. Targets come from the stored frontier in discovery order
 * (breadth first), up to `concurrency` are checked at once (and at most `perHost` per host), and finished
 * results are written back in batches. The store is the truth: a target is only "done" once its batch is
 * committed, so stopping at any point (shutdown, crash) loses nothing but work in flight, which a resumed crawl
 * simply does again. A cancelled crawl writes nothing after the cancel (every batch is fenced: crawl-fence.ts).
 */

/** What a crawl did since its last report (sent after each written batch; the service's metrics count it). */
export interface CrawlProgress {
  pages: number;
  /** Of those, pages whose links came from the previous crawl (page-reuse.ts). */
  reused: number;
  checked: number;
  failures: Partial<Record<NoAnswerReason, number>>;
}

/**
 * How a crawl run ended, and whether its soft-404 probe let it tell soft 404s (soft-404.ts `NotFoundLesson`):
 * without that, the soft 404s of earlier crawls are not checked by this one (open-links.ts).
 */
export type CrawlRunEnd = ({ kind: "finished" } | { kind: "stopped"; reason: StopReason }) & { soft404Judged: boolean };

export interface CrawlRunInput {
  crawlId: string;
  rootUrl: string;
  options: CrawlOptions;
  /** The ignore rules the crawl was created with (none when left out). */
  ignoreRules?: IgnoreRules;
  /** Time left before max_duration, in ms. */
  timeLeftMs: number;
}

export interface CrawlRunEnv {
  frontier: Frontier;
  check: Omit<CheckContext, "signal" | "site">;
  robots: RobotsCache | null;
  concurrency: number;
  perHost: number;
  limits: PageLimits;
  logger: Logger;
  /** The job's GC rhythm: told each page's bytes as they are read and each batch once written. */
  gc: CrawlGcRhythm;
  /** Aborted with a StopReason ("cancelled" or "shutdown") to stop the crawl. */
  signal: AbortSignal;
  /** Told what was checked since the last call, after each written batch (for metrics). */
  onProgress?: (progress: CrawlProgress) => void;
}

/** Targets pulled from the store at a time. */
const PULL_SIZE = 256;
/** Results written per transaction at most, and the longest a finished result waits to be written. */
const BATCH_SIZE = 64;
/**
 * Results held at most while a batch is written: checks go on until this many wait, and the next batch takes
 * them all, so batches grow while the store is slow to write them (PostgreSQL) and stay BATCH_SIZE where it is not.
 */
const BACKLOG_SIZE = 4 * BATCH_SIZE;
/** Links held unwritten at most: a few pages with tens of thousands of links each are written at once. */
const BATCH_LINKS = 20_000;
/** Page ids held unwritten at most (8 bytes each; check_fragments): a few pages with 100,000 ids each are written at once. */
const BATCH_IDS = 1 << 19;
const BATCH_DELAY_MS = 250;

/**
 * The links of a page the options let through, first occurrence per target (docs/api.md "Starting a crawl"); with
 * `check_fragments`, first occurrence per target and fragment, each its own Link.
 */
export function gateLinks(page: ParsedPage, options: CrawlOptions, site: SiteOrigin & Pick<URL, "origin">): FoundLink[] {
  const kept = new Map<string, FoundLink>();
  // Normalised URLs of the site itself start with its origin; only the rest need parsing to decide.
  const sitePrefix = `${site.origin}/`;
  const judged = options.check_fragments ? fragmentsToJudge(page) : null;
  for (const link of page.links) {
    const fragment = judged === null || link.fragment === undefined ? undefined : recordedFragment(link.fragment);
    // A normalised URL has no `#` of its own, so the key cannot collide with another URL's.
    const key = fragment === undefined ? link.url : `${link.url}#${fragment}`;
    if (kept.has(key)) continue;
    const option = OPTION_OF_KIND[link.kind];
    if (option !== null && !options[option]) continue;
    if (link.uncheckable !== undefined) {
      // Recorded whatever host it names: no request is made, and the page's author can fix it.
      const verdict = uncheckableVerdict(link.uncheckable);
      kept.set(key, { url: link.url, internal: link.url.startsWith(sitePrefix), kind: link.kind, text: link.text, verdict });
      continue;
    }
    const internal = link.url.startsWith(sitePrefix) || isInternal(new URL(link.url), site);
    if (!internal && !options.follow_external) continue;
    const found: FoundLink = { url: link.url, internal, kind: link.kind, text: link.text };
    if (fragment !== undefined) {
      found.fragment = fragment;
      if (judged!(found, fragment)) found.judgeFragment = true;
    }
    kept.set(key, found);
  }
  return [...kept.values()];
}

/** Runs the crawl until its frontier is empty or it is stopped. */
export async function runCrawl(input: CrawlRunInput, env: CrawlRunEnv): Promise<CrawlRunEnd> {
  const site = new URL(input.rootUrl);
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort(env.signal.reason);
  env.signal.addEventListener("abort", onOuterAbort, { once: true });
  if (env.signal.aborted) stop.abort(env.signal.reason);
  const deadline = setTimeout(() => stop.abort("max_duration" satisfies StopReason), Math.max(0, input.timeLeftMs));
  const limiter = new HostLimiter(env.perHost);
  const robots = env.robots;
  const ignore = new IgnoreGate(input.ignoreRules ?? noIgnoreRules());
  const context: CheckContext = {
    ...env.check,
    site,
    signal: stop.signal,
    // A redirect into an excluded URL is not followed either: an excluded URL is never requested.
    mayFetch: async (url) => ignore.excludedBy(url) === null && (robots === null || (await robots.allows(url, stop.signal))),
    excludedBy: (url) => ignore.excludedBy(url),
    readCss: input.options.scan_stylesheets,
    collectIds: input.options.check_fragments,
    pageBytesRead: env.gc.pageBytesRead,
    // Only what frontier.commit will certainly drop: committed pages only grow, and depth is the target's own.
    wantsLinks: (target) => !pagesFull && target.depth <= env.limits.maxDepth,
  };
  const robotsRefusal = async (url: string): Promise<string | null> => {
    if (robots === null) return null;
    const verdict = await robots.verdict(url, stop.signal);
    return verdict.allowed ? null : verdict.reason;
  };

  /** Whether max_pages pages are committed: later pages are checked, their links not recorded (frontier.ts). */
  let pagesFull = (await env.frontier.pagesCrawled(input.crawlId)) >= env.limits.maxPages;
  const buffer: FrontierTarget[] = [];
  const finished: FrontierResult[] = [];
  let cursor = 0;
  let inFlight = 0;
  // Monotonic: after a wall-clock step back, timed flushes (and progress) would stop for the size of the step.
  let lastFlush = monotonicNow();
  let unwrittenLinks = 0;
  let unwrittenIds = 0;
  let wakeUp: (() => void) | null = null;
  let progress: CrawlProgress = { pages: 0, reused: 0, checked: 0, failures: {} };
  let sitemapsRead = false;

  // Resolves when a check finishes, or after BATCH_DELAY_MS so finished results never wait long to be written.
  const nextEvent = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, BATCH_DELAY_MS);
      function done(): void {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  let notFound: NotFoundProbe | null = null;
  let probeWarned = false;
  // The probe's warning is written with the first batch after it answers, not at the end, so a cancelled crawl
  // keeps it. A crawl that read no page gets none: it fails at its start page, whose error already says why.
  const recordProbeWarning = async (): Promise<void> => {
    const lesson = notFound?.learnt;
    if (probeWarned || lesson === undefined || lesson.warning === null || stop.signal.aborted) return;
    if ((await env.frontier.pagesCrawled(input.crawlId)) === 0) return;
    probeWarned = true;
    await env.frontier.addWarnings(input.crawlId, [{ cause: "soft_404_blind", sample: lesson.warning }]);
  };
  /**
   * Writes the finished results as one batch. One batch at a time: the loop starts it (writeBehind) and checks go
   * on while it is written, or waits for it (settle) where it needs the store to be up to date.
   */
  const flush = async (): Promise<void> => {
    if (finished.length === 0) return;
    const results = finished.splice(0);
    const reported = progress;
    progress = { pages: 0, reused: 0, checked: 0, failures: {} };
    unwrittenLinks = 0;
    unwrittenIds = 0;
    lastFlush = monotonicNow();
    const batch = await env.frontier.commit(input.crawlId, results, env.limits);
    await recordProbeWarning();
    pagesFull = batch.pagesCrawled >= env.limits.maxPages;
    if (!stop.signal.aborted) buffer.unshift(...batch.redo);
    env.gc.batchWritten();
    env.onProgress?.(reported);
  };
  /** The batch being written while checks go on (at most one), and how its write failed, if it did. */
  let writing: Promise<void> | null = null;
  let writeFailure: { error: unknown } | null = null;
  // A store one round trip away (PostgreSQL) would otherwise leave every check slot idle while a batch is written.
  const writeBehind = (): void => {
    if (writing !== null || finished.length === 0) return;
    writing = flush().then(
      () => {
        writing = null;
        wakeUp?.();
      },
      (error: unknown) => {
        writing = null;
        writeFailure = { error };
        wakeUp?.();
      },
    );
  };
  /** Waits for the batch being written; throws how it failed. */
  const settle = async (): Promise<void> => {
    if (writing !== null) await writing;
    if (writeFailure !== null) throw writeFailure.error;
  };
  /** Whether the unwritten results reached a batch's size: written now, or no more checks start until they are. */
  const batchFull = (): boolean => finished.length >= BATCH_SIZE || unwrittenLinks >= BATCH_LINKS || unwrittenIds >= BATCH_IDS;
  /** Whether no more checks start until the batch being written is done (memory stays bounded). */
  const backlogFull = (): boolean => finished.length >= BACKLOG_SIZE || unwrittenLinks >= BATCH_LINKS || unwrittenIds >= BATCH_IDS;
  const refill = async (): Promise<void> => {
    const rows = await env.frontier.pull(input.crawlId, cursor, PULL_SIZE);
    if (rows.length > 0) cursor = rows[rows.length - 1]!.id;
    // The previous crawl's records of the pulled pages, in one statement rather than one as each is checked.
    await context.reuse?.readAhead(rows.filter((row) => row.asPage).map((row) => row.url));
    buffer.push(...rows);
  };
  const work = async (target: FrontierTarget): Promise<void> => {
    try {
      const result = await limiter.run(new URL(target.url).host, () => checkOne(target));
      if (result !== null) {
        finished.push(result);
        if (result.kind === "checked") {
          unwrittenLinks += result.page === null ? 0 : (result.page.reusedLinks?.count ?? result.page.links.length);
          unwrittenIds += result.page?.ids?.hashes.length ?? 0;
        }
      }
    } catch (error) {
      // A bug in one check must not take the crawl down, nor leave the target queued for ever: it is recorded
      // as a check that failed, and the details go to the log.
      env.logger.error("crawl target check failed", { crawl_id: input.crawlId, url: target.url, error: String(error) });
      const verdict = { status_code: 0, is_broken: true, error: "internal error while checking this link; see the server log", warning: null };
      finished.push({ kind: "checked", target, verdict, finalUrl: null, redirectEnd: null, page: null });
    } finally {
      inFlight--;
      wakeUp?.();
    }
  };
  const checkOne = async (target: FrontierTarget): Promise<FrontierResult | null> => {
    if (stop.signal.aborted) return null;
    const refusal = await robotsRefusal(target.url);
    if (refusal !== null) return { kind: "skipped", target, reason: refusal };
    const checked = await checkTarget(target, context);
    if (checked.aborted || stop.signal.aborted) return null;
    progress.checked += 1;
    if (checked.page !== null && !checked.page.stylesheet) progress.pages += 1;
    if (checked.failure !== null) progress.failures[checked.failure] = (progress.failures[checked.failure] ?? 0) + 1;
    const parsed = checked.page;
    if (parsed?.reused != null) progress.reused += 1;
    // A reused page's links were gated by the previous crawl, under options and rules that cover these (reuse-cover.ts).
    const reused = parsed?.reused ?? null;
    const kept = parsed === null || reused !== null ? null : ignore.filter(gateLinks(parsed, input.options, site));
    const page =
      parsed === null
        ? null
        : {
            url: parsed.url,
            links: kept?.links ?? [],
            reusedLinks: reused,
            excluded: reused?.excluded ?? kept?.excluded ?? 0,
            cut: parsed.cut !== null,
            stylesheet: parsed.stylesheet,
            ids: parsed.ids,
            record: parsed.record ?? null,
            reused: parsed.reused != null,
          };
    const { finalUrl } = checked;
    const verdict = ignore.muted(target.url, checked.verdict);
    const redirectEnd =
      checked.redirectEnd === null ? null : { ...checked.redirectEnd, verdict: ignore.muted(checked.redirectEnd.url, checked.redirectEnd.verdict) };
    return { kind: "checked", target, verdict, finalUrl, redirectEnd, page };
  };

  try {
    await env.frontier.seed(input.crawlId, site.href);
    // Alongside the crawl, not before it: only pages read before it answers wait for it (soft-404.ts).
    notFound = new NotFoundProbe(site, context, input.options.soft_404_broken);
    context.softNotFound = notFound;
    // Each turn starts work, or waits for a check to finish; it ends when nothing is queued, in flight or unwritten.
    while (!stop.signal.aborted) {
      if (writeFailure !== null) await settle();
      if (buffer.length === 0) {
        await settle();
        await flush();
        await refill();
      }
      // While a batch is written, the next one fills up to the backlog's size and no further.
      while (inFlight < env.concurrency && buffer.length > 0 && !(writing !== null && backlogFull())) {
        inFlight++;
        void work(buffer.shift()!);
      }
      if (inFlight === 0 && buffer.length === 0) {
        await settle();
        await flush();
        await refill();
        if (buffer.length === 0 && input.options.use_sitemap && !sitemapsRead) {
          // Only now is every page reachable by links known, so sitemap entries none of them link to are orphans.
          sitemapsRead = true;
          await recordSitemapEntries(input.crawlId, site, { frontier: env.frontier, context, robots, excluded: (url) => ignore.excludedBy(url) !== null });
          await refill();
        }
        if (buffer.length === 0) break;
        continue;
      }
      await nextEvent();
      if (batchFull() || monotonicNow() - lastFlush >= BATCH_DELAY_MS) writeBehind();
    }
    // Stopped: let checks in flight notice the abort, then keep what was finished, unless the crawl was
    // cancelled: it has ended, and what it had written when it ended is its result (crawl-fence.ts).
    while (inFlight > 0) await nextEvent();
    await settle();
    if (stop.signal.reason !== ("cancelled" satisfies StopReason)) await flush();
    // Bounded by the probe's own timeout, and aborted with the crawl.
    const lesson = await notFound.settled;
    await recordProbeWarning();
    // Fragments are judged once every target is checked: only then is each target's final page known.
    if (!stop.signal.aborted && input.options.check_fragments) {
      await checkFragments(input.crawlId, {
        repo: env.frontier.fragments,
        context,
        concurrency: Math.min(env.concurrency, env.perHost),
        logger: env.logger,
        addWarnings: (warnings, tx) => env.frontier.addWarnings(input.crawlId, warnings, tx),
        brokenSince: (url, link) => env.frontier.brokenSinceOf(input.crawlId, url, link),
        muteWarning: (url, found) => ignore.muteWarning(url, found),
      });
    }
    if (stop.signal.aborted) return { kind: "stopped", reason: stop.signal.reason as StopReason, soft404Judged: lesson.judged };
    return { kind: "finished", soft404Judged: lesson.judged };
  } catch (error) {
    // The crawl was ended elsewhere (cancelled) before this job heard of it, or another node took it over after
    // this one went silent (its lease): the store refused the write, and nothing more is this job's to write.
    const reason: StopReason | null = error instanceof CrawlEndedError ? "cancelled" : error instanceof LeaseLostError ? "shutdown" : null;
    if (reason === null) throw error;
    if (!stop.signal.aborted) stop.abort(reason);
    while (inFlight > 0 || writing !== null) await nextEvent();
    return { kind: "stopped", reason, soft404Judged: false };
  } finally {
    clearTimeout(deadline);
    if (!stop.signal.aborted) stop.abort("shutdown" satisfies StopReason); // nothing may outlive the run
    env.signal.removeEventListener("abort", onOuterAbort);
  }
}

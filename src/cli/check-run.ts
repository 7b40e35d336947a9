import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDurationMs } from "../config/duration.ts";
import { configSchema } from "../config/schema.ts";
import { elapsedMs, monotonicNow } from "../core/clock.ts";
import { CRAWL_OPTION_ROWS } from "../core/crawl-option-table.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { UnsafeUrlError } from "../core/errors.ts";
import { collectEvery, youngThenFull } from "../core/gc-rhythm.ts";
import { visibleText } from "../core/visible-text.ts";
import { isPrivateAddress } from "../net/address-policy.ts";
import { parseCidr } from "../net/cidr.ts";
import { systemResolve } from "../net/resolve.ts";
import { patternProblem, UrlPatterns } from "../core/url-patterns.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import type { LinkView, OrphanPageView } from "../services/crawl-view.ts";
import { describeStoreWriteFailure, storeWriteFailure } from "../store/write-failure.ts";
import { FORMATS, renderReport, reportSummary, type CheckReport, type ReportFormat } from "../services/report/report.ts";
import type { CHECK_OPTIONS } from "./check.ts";
import { err, EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, type parseCommandArgs } from "./usage.ts";

/**
 * What `linkpatrol check` does once its flags are parsed (check.ts): validates them, crawls the site in this
 * process on a temporary store, waits for the crawl's end, and writes the report.
 */

type Values = ReturnType<typeof parseCommandArgs<typeof CHECK_OPTIONS>>["values"];

/**
 * The longest wait for the crawl pool between two looks at whether the crawl is stuck: its end is signalled at
 * once, but a store that refuses to hand out the crawl (a full disk) has no signal of its own.
 */
const STALL_CHECK_MS = 100;
const PROGRESS_MS = 250;
/** Report text written per system call. */
const WRITE_BLOCK = 64 * 1024;
/**
 * A young collection per 5,000 links read for the report and a full one per 50,000: every format walks all of
 * a crawl's links (2.2M rows at 50k pages), and their short-lived objects and strings otherwise raise check's
 * peak RSS (bench/README.md, "Memory").
 */
const LINKS_PER_YOUNG_COLLECTION = 5_000;
const YOUNG_COLLECTIONS_PER_FULL = 10;

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

function durationFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationMs(value);
  if (ms === null || ms <= 0) throw new UsageError(`--${flag} must be a duration such as 10s or 500ms, got ${JSON.stringify(value)}`);
  return ms / 1000;
}

function patterns(flag: string, values: string[] | undefined): UrlPatterns {
  for (const source of values ?? []) {
    const problem = patternProblem(source);
    if (problem !== null) throw new UsageError(`--${flag} ${JSON.stringify(source)} ${problem}`);
  }
  return new UrlPatterns(values ?? []);
}

function headers(values: string[] | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const header of values ?? []) {
    const colon = header.indexOf(":");
    if (colon < 1) throw new UsageError(`--header must look like "Name: value", got ${JSON.stringify(header)}`);
    result[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return result;
}

function targetUrl(raw: string | undefined): URL {
  if (raw === undefined) throw new UsageError("check needs a URL, e.g. linkpatrol check https://docs.example.com/");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`only http and https URLs can be checked: ${raw}`);
  url.hash = "";
  return url;
}

/**
 * Credentials in the URL (`https://user:secret@staging/`) become the site's Basic Authorization, as curl does,
 * and leave the URL, so the secret is never stored, reported or logged. An explicit --header wins.
 */
function takeCredentials(url: URL, headers: Record<string, string>): void {
  if (url.username === "" && url.password === "") return;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return;
  headers.Authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/** The --allow-cidr blocks; a bare address is a block of one (/32, /128). */
function cidrFlags(values: string[] | undefined): string[] {
  return (values ?? []).map((text) => {
    const block = text.includes("/") ? text : `${text}/${text.includes(":") ? 128 : 32}`;
    if (parseCidr(block) === null) throw new UsageError(`--allow-cidr takes a CIDR block such as 10.1.0.0/16 or fd00::/64, got ${JSON.stringify(text)}`);
    return block;
  });
}

/**
 * Which private addresses the crawl may reach. --allow-cidr opens its blocks. --allow-private on a start URL whose
 * host is (or resolves to) a private or loopback address opens those addresses only, so a redirect or a link
 * cannot carry the crawl into the rest of the private network (127.0.0.2, the router, a metadata endpoint);
 * on a public start URL it opens every private range, as its name says (docs/cli.md, "check").
 */
async function privateAccess(url: URL, values: Values): Promise<{ allow_private_networks: boolean; allowed_cidrs: string[] }> {
  const named = cidrFlags(values["allow-cidr"]);
  if (!values["allow-private"]) return { allow_private_networks: false, allowed_cidrs: named };
  // A name that does not resolve now fails the crawl at its start page whatever is open: open nothing more.
  const addresses = await systemResolve(url.hostname).catch(() => null);
  if (addresses === null) return { allow_private_networks: false, allowed_cidrs: named };
  const start = addresses.filter((entry) => isPrivateAddress(entry.address)).map((entry) => `${entry.address}/${entry.family === 4 ? 32 : 128}`);
  if (start.length === 0) return { allow_private_networks: true, allowed_cidrs: named };
  return { allow_private_networks: false, allowed_cidrs: [...new Set([...start, ...named])] };
}

/** The crawler section from the flags; everything else keeps its built-in default. */
function crawlerSettings(values: Values) {
  const concurrency = positiveInt("concurrency", values.concurrency);
  const timeout = durationFlag("timeout", values.timeout);
  const acceptStatus = values["accept-status"]?.split(",").map((code) => {
    if (!/^\d{3}$/.test(code.trim())) throw new UsageError(`--accept-status takes HTTP statuses like 403,999, got ${JSON.stringify(code)}`);
    return Number(code.trim());
  });
  return {
    workers: 1,
    ...(concurrency !== undefined && { concurrency: Math.min(concurrency, 512), per_host_concurrency: Math.min(concurrency, 64) }),
    ...(values["max-pages"] !== undefined && { max_pages: positiveInt("max-pages", values["max-pages"]) }),
    ...(values["max-links-per-page"] !== undefined && { max_links_per_page: positiveInt("max-links-per-page", values["max-links-per-page"]) }),
    ...(values["max-duration"] !== undefined && { max_duration: durationFlag("max-duration", values["max-duration"]) }),
    ...(timeout !== undefined && { connect_timeout: timeout, header_timeout: timeout, body_timeout: timeout }),
    ...(acceptStatus !== undefined && { accept_status: acceptStatus }),
    ...(values["user-agent"] !== undefined && { user_agent: values["user-agent"] }),
    ...(values["no-robots"] && { respect_robots: false }),
    headers: headers(values.header),
  };
}

function crawlOptions(values: Values): CrawlOptions {
  const all = values.all === true;
  return Object.fromEntries(CRAWL_OPTION_ROWS.map(([name, row]) => [name, (all && row.inAll) || values[row.flag] === true])) as CrawlOptions;
}

/** A live line on a terminal: pages, queue, links, broken, rate; cleared at the end. */
function startProgress(runtime: Runtime, crawlId: string, startedAt: number): () => void {
  if (!process.stderr.isTTY) return () => {};
  let stopped = false;
  const show = async () => {
    const crawl = await runtime.crawls.brief(crawlId);
    const queued = await runtime.crawls.queued(crawlId);
    const rate = crawl.pages_crawled / Math.max(0.001, elapsedMs(startedAt, monotonicNow()) / 1000);
    const line = `${crawl.pages_crawled} pages · ${queued} queued · ${crawl.total_links} links · ${crawl.broken_links} broken · ${rate.toFixed(0)} pages/s`;
    if (!stopped) process.stderr.write(`\r\x1b[K${line}`);
  };
  // A progress line the store could not answer is skipped; the next tick tries again.
  const timer = setInterval(() => void show().catch(() => {}), PROGRESS_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
    process.stderr.write("\r\x1b[K");
  };
}

/** Wakes whoever waits for the pool's next crawl transition (a crawl started or ended), at most `ms` later. */
class TransitionWaiter {
  private wake: (() => void) | null = null;

  /** What the pool calls on each transition. */
  readonly notify = (): void => {
    this.wake?.();
  };

  /** Resolves at the next transition, or after `ms` without one; leaves no timer behind. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(this.notify, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

/** Writes text chunks to a file descriptor in blocks, so a report of any size passes through a small buffer. */
async function writeChunks(fd: number, chunks: AsyncIterable<string>): Promise<void> {
  let block = "";
  for await (const chunk of chunks) {
    block += chunk;
    if (block.length >= WRITE_BLOCK) {
      writeSync(fd, block);
      block = "";
    }
  }
  if (block !== "") writeSync(fd, block);
}

/** The error of a temporary store that cannot take writes, `why` in words. */
function unwritableStore(dir: string, why: string): UsageError {
  return new UsageError(`the crawl's temporary store in ${dir} cannot be written (is the disk full?): ${why}; free space or point TMPDIR elsewhere`);
}

/** Runs `linkpatrol check` with its parsed flags: one crawl on a temporary store, then the report; the exit code. */
export async function runCheck(values: Values, positionals: string[]): Promise<number> {
  if (positionals.length > 1) throw new UsageError(`check takes one URL, got ${positionals.length}`);
  const url = targetUrl(positionals[0]);
  const format = (values.format ?? "text") as ReportFormat;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got ${JSON.stringify(values.format)}`);
  const include = patterns("include", values.include);
  const exclude = patterns("exclude", values.exclude);
  const options = crawlOptions(values);
  const crawler = { ...crawlerSettings(values), ...(await privateAccess(url, values)) };
  takeCredentials(url, crawler.headers);

  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-check-"));
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  const onSignal = () => {
    cleanUp();
    process.exit(EXIT_USAGE);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let runtime: Runtime | undefined;
  const transitions = new TransitionWaiter();
  try {
    const config = configSchema.parse({ storage: { path: join(dir, "check.db") }, crawler, logging: { level: "error" } });
    try {
      runtime = await openRuntime(config, { inlineCrawls: true, temporaryStore: true, onCrawlTransition: transitions.notify });
    } catch (error) {
      // A disk too full to build the store at all says what one that fills mid-crawl says.
      const failure = storeWriteFailure(error);
      if (failure !== null) throw unwritableStore(dir, describeStoreWriteFailure(failure, config.storage.path));
      throw error;
    }
    const domain = await runtime.domains.add({ name: url.host, root_url: url.href }, true).catch((error: unknown) => {
      if (error instanceof UnsafeUrlError && !values["allow-private"]) {
        throw new UsageError(`${error.message} (checking a site on a private or loopback address needs --allow-private, or --allow-cidr naming it)`);
      }
      throw error;
    });
    const startedAt = monotonicNow();
    const crawl = await runtime.crawls.start(domain.id, options);
    runtime.crawlPool.start();
    const stopProgress = startProgress(runtime, crawl.id, startedAt);
    let detail = await runtime.crawls.get(crawl.id);
    // Bounded: the crawl ends by itself at max_duration at the latest. Its end is a transition of the pool, so the
    // report follows at once, not at the next poll (which was most of a small check's wait).
    while (detail.status === "pending" || detail.status === "running") {
      // The service would wait for space to be freed; a one-shot check says so and stops.
      const stalled = runtime.crawlPool.stalled(crawl.id);
      if (stalled !== null) {
        stopProgress();
        throw unwritableStore(dir, stalled);
      }
      await transitions.next(STALL_CHECK_MS);
      detail = await runtime.crawls.get(crawl.id);
    }
    stopProgress();

    const reported = (link: Pick<LinkView, "url">) => (include.size === 0 || include.matches(link.url)) && !exclude.matches(link.url);
    const crawls = runtime.crawls;
    async function* links(): AsyncGenerator<LinkView[]> {
      const trimHeap = collectEvery(LINKS_PER_YOUNG_COLLECTION, youngThenFull(YOUNG_COLLECTIONS_PER_FULL));
      for await (const batch of crawls.allLinks(crawl.id)) {
        for (let i = 0; i < batch.length; i++) trimHeap();
        yield batch.filter(reported);
      }
    }
    async function* brokenLinks(): AsyncGenerator<LinkView[]> {
      for await (const batch of crawls.allBrokenLinks(crawl.id)) yield batch.filter(reported);
    }
    async function* orphans(): AsyncGenerator<OrphanPageView[]> {
      for await (const batch of crawls.allOrphans(crawl.id)) yield batch.filter(reported);
    }
    // Without --include/--exclude every link is reported, and the crawl's own totals count them.
    let reportedLinks = detail.total_links;
    let reportedBroken = detail.broken_links;
    if (include.size > 0 || exclude.size > 0) {
      reportedLinks = 0;
      reportedBroken = 0;
      for await (const batch of links()) {
        reportedLinks += batch.length;
        for (const link of batch) if (link.is_broken) reportedBroken++;
      }
    }
    const report: CheckReport = {
      url: url.href,
      options,
      summary: reportSummary(detail, { links: reportedLinks, broken: reportedBroken }),
      links,
      brokenLinks,
      ...(options.use_sitemap && { orphans }),
    };
    const rendered = renderReport(report, format);
    if (values.output === undefined) await writeChunks(1, rendered);
    else {
      const fd = openSync(values.output, "w");
      try {
        await writeChunks(fd, rendered);
      } finally {
        closeSync(fd);
      }
    }

    for (const warning of detail.warnings) err(visibleText(`linkpatrol: warning: ${warning}`));
    if (detail.status === "failed") {
      err(visibleText(`linkpatrol: the crawl failed: ${detail.error ?? "unknown error"}`));
      // A start page that cannot be crawled is a finding about the site, like a broken link; other failures are run errors.
      return detail.failure === "start_page" ? EXIT_FAILED : EXIT_USAGE;
    }
    return report.summary.reported_broken > 0 ? EXIT_FAILED : EXIT_OK;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (runtime !== undefined) {
      await runtime.crawlPool.stop();
      await runtime.close();
    }
    cleanUp();
  }
}

import type { CrawlEnd } from "../core/crawl-life.ts";
import type { WarningInput } from "../core/crawl-warnings.ts";
import type { CrawlsRepo, TargetRow } from "../store/crawls.repo.ts";
import { isInternal } from "./normalize.ts";

/**
 * How a crawl whose frontier ran out is judged, from the store (so a resumed crawl is judged alike). A start page
 * that yields no parsed page fails the crawl (docs/decisions.md, "A start page that gives nothing to crawl").
 */

/** What the judgement reads. */
export interface CrawlEndFacts {
  /** The start URL as the frontier holds it (normalised). */
  startUrl: string;
  startPage: TargetRow | undefined;
  pagesCrawled: number;
  totalLinks: number;
  skippedLinks: number;
  pagesCut: number;
  truncated: boolean;
  /** Targets were left unchecked (a crawl that ended before its frontier ran out: cancelled, out of time). */
  unfinished: boolean;
}

/** The facts of crawl `crawlId` as the store holds them now. */
export async function readEndFacts(crawls: CrawlsRepo, crawlId: string): Promise<CrawlEndFacts> {
  const crawl = (await crawls.findById(crawlId))!;
  const startUrl = new URL(crawl.root_url).href;
  return {
    startUrl,
    startPage: await crawls.target(crawlId, startUrl),
    pagesCrawled: crawl.pages_crawled,
    totalLinks: crawl.total_links,
    skippedLinks: crawl.skipped_links,
    pagesCut: crawl.pages_cut,
    truncated: crawl.truncated,
    unfinished: await crawls.hasQueued(crawlId),
  };
}

/** Why the start page gave nothing to crawl, in one sentence naming it. */
export function startPageError(url: string, row: TargetRow | undefined): string {
  const subject = `the start page ${url}`;
  if (row === undefined || row.state === "queued") return `${subject} was never checked`;
  if (row.state === "skipped") return `${subject} was not fetched: ${row.warning ?? "robots.txt disallows it"}`;
  const status = row.status_code ?? 0;
  if (status === 0) return `${subject} could not be fetched: ${row.error ?? "no answer"}`;
  const via = row.final_url !== null && row.final_url !== url ? ` (redirected to ${row.final_url})` : "";
  if (status < 200 || status > 299) return `${subject} answered HTTP ${status}${via}${row.warning === null ? "" : `: ${row.warning}`}`;
  if (row.final_url !== null && !isInternal(new URL(row.final_url), new URL(url))) {
    return `${subject} redirects to ${row.final_url}, outside the crawled site (${new URL(url).host}); crawl that URL instead`;
  }
  return `${subject} answered HTTP ${status}${via} but is not an HTML page, so there is nothing to crawl`;
}

/**
 * Warnings for a crawl that ran, added to those recorded while it ran when it ends (however it ends): what its
 * counts alone would hide. A warning without a cause of its own may be plain text (core/crawl-warnings.ts).
 */
export function crawlWarnings(facts: CrawlEndFacts): WarningInput[] {
  const warnings: WarningInput[] = [];
  // Links count once their target is checked: a crawl stopped with targets left may have links not counted yet.
  if (facts.pagesCrawled > 0 && facts.totalLinks === 0 && facts.skippedLinks === 0 && !facts.unfinished) {
    warnings.push({ cause: "no_links_in_scope", count: facts.pagesCrawled });
  }
  if (facts.pagesCut > 0) warnings.push({ cause: "pages_cut", count: facts.pagesCut });
  if (facts.truncated) warnings.push({ cause: "truncated" });
  return warnings;
}

/** The end state of a crawl whose frontier ran out. */
export function judgeCrawlEnd(facts: CrawlEndFacts): CrawlEnd {
  if (facts.pagesCrawled === 0) return { kind: "failed", failure: "start_page", error: startPageError(facts.startUrl, facts.startPage) };
  return { kind: "completed" };
}

import type { CrawlFailure } from "../core/crawl-failure.ts";
import type { TargetRow } from "../store/crawls.repo.ts";
import { isInternal } from "./normalize.ts";

/**
 * How a crawl whose frontier ran out is judged, from what the store holds (so a resumed crawl is judged the
 * same way). A start page that yields no parsed page is a failure that names its cause: a site that is down,
 * moved or refuses us must never read as a clean crawl. A crawl that did run gets warnings for what a clean
 * count would hide: nothing in scope, pages cut at the body limit, pages left unparsed by a limit.
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
  maxBodyBytes: number;
  /** Warnings recorded while the crawl ran (its sitemaps, a site that answers 200 for missing pages); kept first. */
  recordedWarnings?: readonly string[];
}

export type CrawlEndJudgement =
  | { status: "completed"; warnings: string[] }
  | { status: "failed"; failure: CrawlFailure; error: string; warnings: string[] };

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

/** Warnings for a crawl that ran: what its counts alone would hide. */
export function crawlWarnings(facts: CrawlEndFacts): string[] {
  const warnings: string[] = [...(facts.recordedWarnings ?? [])];
  if (facts.pagesCrawled > 0 && facts.totalLinks === 0 && facts.skippedLinks === 0) {
    warnings.push(
      `no links to check: the ${facts.pagesCrawled === 1 ? "page crawled has" : `${facts.pagesCrawled} pages crawled have`} no link in scope ` +
        "(links to other hosts need follow_external; images, scripts and stylesheets need their scan option)",
    );
  }
  if (facts.pagesCut > 0) {
    warnings.push(
      `${facts.pagesCut === 1 ? "1 page was" : `${facts.pagesCut} pages were`} cut short by crawler.max_body_bytes ` +
        `(${facts.maxBodyBytes} bytes) or crawler.max_links_per_page: links past the cut were not checked; ` +
        "links to such a page carry a warning saying which",
    );
  }
  if (facts.truncated) warnings.push("max_pages or max_depth left pages unparsed: their links were not checked");
  return warnings;
}

/** The end state of a crawl whose frontier ran out. */
export function judgeCrawlEnd(facts: CrawlEndFacts): CrawlEndJudgement {
  const warnings = crawlWarnings(facts);
  if (facts.pagesCrawled === 0) {
    return { status: "failed", failure: "start_page", error: startPageError(facts.startUrl, facts.startPage), warnings };
  }
  return { status: "completed", warnings };
}

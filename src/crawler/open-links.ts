import type { CrawlOptions } from "../core/crawl-options.ts";
import type { IgnoreRules } from "../core/ignore-rules.ts";
import { OPTION_OF_KIND } from "../core/crawl-option-table.ts";
import type { CrawlRef, LinkSource, OpenLinkRecord, OpenLinksRepo, TargetReach } from "../store/open-links.repo.ts";
import { IgnoreGate } from "./ignore-gate.ts";

/**
 * What a crawl makes of the links its domain left open. A link is fixed only when this crawl checked it and found
 * it good; one it did not check (kind off, ignored, page not reached, crawl cut or failed) is copied as
 * unchecked so the next crawl compares against it (docs/decisions.md, "The diff compares open links").
 */

/**
 * Whether crawls `a` and `b` match links with their fragments: only when both kept them, so toggling
 * check_fragments does not make a still-broken link fixed or new.
 */
export function matchFragments(a: Pick<CrawlRef, "fragments">, b: Pick<CrawlRef, "fragments">): boolean {
  return a.fragments && b.fragments;
}

/**
 * The crawl that crawl `crawlId`'s changes are read against (the previous ended one of its domain), and whether
 * their links are matched with fragments; null without one.
 */
export async function comparedWith(repo: OpenLinksRepo, crawlId: string): Promise<{ id: string; fragments: boolean } | null> {
  const crawl = await repo.crawl(crawlId);
  const previous = await repo.previousEnded(crawlId);
  if (crawl === undefined || previous === undefined) return null;
  return { id: previous.id, fragments: matchFragments(crawl, previous) };
}

/** The key a link is matched by across two crawls (matchFragments says whether its fragment is part of it). */
export function linkKey(url: string, link: LinkSource, withFragments: boolean): string {
  return withFragments ? `${url}${link.fragment}\n${link.source_url}` : `${url}\n${link.source_url}`;
}

/** What becomes of an open link in a crawl: broken again, checked and found good, or not checked. */
export type OpenLinkFate = "broken" | "fixed" | "not_checked";

/** What the crawl found, as the rule reads it (what it reads of the store is read before the rule runs). */
export interface CrawlFindings {
  options: CrawlOptions;
  /** Whether one of the crawl's ignore rules (`exclude` or `mute`) matches the target URL `url`. */
  ignored(url: string): boolean;
  /** The crawl completed: its fragment verdicts are all written (they are judged at the end). */
  completed: boolean;
  /** The run that ended the crawl could tell soft 404s (its probe learnt the not-found page, or missing pages answer an error). */
  soft404Judged: boolean;
  /** Whether the crawl has the link among its broken links (matched as matchFragments says). */
  brokenNow(link: OpenLinkRecord): boolean;
  /** What the crawl made of the target at `url`, if it has one. */
  target(url: string): TargetReach | undefined;
  /** The page (or stylesheet) at `url` as the crawl parsed it; undefined when it did not. */
  page(url: string): { cut: boolean } | undefined;
}

/** Whether the crawl `found` describes checks links like `link` at all: its kind, its host, what made it broken. */
export function inScope(found: Pick<CrawlFindings, "options" | "soft404Judged">, link: Pick<OpenLinkRecord, "kind" | "internal" | "cause">): boolean {
  const { options } = found;
  const option = OPTION_OF_KIND[link.kind];
  if (option !== null && !options[option]) return false;
  if (!link.internal && !options.follow_external) return false;
  switch (link.cause) {
    case "answer":
      return true;
    case "soft_404":
      // Without a probe that could tell, a soft 404 answers 200 like a fixed link: nothing was judged.
      return options.soft_404_broken && found.soft404Judged;
    case "fragment":
      return options.check_fragments;
  }
}

/** The fate of one open link in the crawl that `found` describes. */
export function judgeOpenLink(link: OpenLinkRecord, found: CrawlFindings): OpenLinkFate {
  if (found.brokenNow(link)) return "broken";
  if (!inScope(found, link)) return "not_checked";
  if (link.cause === "fragment" && !found.completed) return "not_checked";
  // Excluded: never a target, so "gone from a page read whole" would read as fixed. Muted: its verdict is good by
  // rule. The rules match the target's URL: an open link's `url` is that, its fragment kept apart.
  if (found.ignored(link.url)) return "not_checked";
  const target = found.target(link.url);
  const page = found.page(link.source_url);
  // The page was read whole and the link is not broken on it: it was judged good there, or it is gone. A target
  // still queued or robots-skipped may be linked from it unjudged.
  if (page !== undefined && !page.cut && (target === undefined || target.state === "done")) return "fixed";
  // The target answers well now, whichever page links to it (a missing fragment is a matter of the page's ids).
  if (link.cause !== "fragment" && target?.state === "done" && !target.is_broken) return "fixed";
  return "not_checked";
}

/** Unchecked links written per statement batch while a crawl is settled. */
const WRITE_BATCH = 500;
/** Open links judged together, their targets' and pages' states read for them at once. */
const READ_BATCH = 500;

/** Reads the URLs of `urls` that `held` lacks, in one call of `read`, into `held` (undefined for one `read` leaves out). */
async function holdUnheld<T>(held: Map<string, T | undefined>, urls: readonly string[], read: (urls: string[]) => Promise<Map<string, T>>): Promise<void> {
  const unheld = [...new Set(urls.filter((url) => !held.has(url)))];
  if (unheld.length === 0) return;
  const found = await read(unheld);
  for (const url of unheld) held.set(url, found.get(url));
}

/**
 * Copies the open links the ended crawl did not check into its unchecked links, once, in the transaction that ends
 * it. `soft404Judged`: the run that ended it could tell soft 404s.
 */
export async function settleOpenLinks(
  repo: OpenLinksRepo,
  crawl: { id: string; options: CrawlOptions; ignore_rules: IgnoreRules; status: string; started_at: string | null },
  soft404Judged: boolean,
): Promise<void> {
  if (crawl.started_at === null) return;
  const previous = await repo.previousEnded(crawl.id);
  if (previous === undefined) return;
  const withFragments = matchFragments({ fragments: crawl.options.check_fragments }, previous);
  const broken = new Set<string>();
  for await (const pair of repo.brokenPairs(crawl.id)) broken.add(linkKey(pair.url, pair, withFragments));
  const targets = new Map<string, TargetReach | undefined>();
  const pages = new Map<string, { cut: boolean } | undefined>();
  const rules = new IgnoreGate(crawl.ignore_rules);
  const found: CrawlFindings = {
    options: crawl.options,
    ignored: (url) => rules.ignores(url),
    completed: crawl.status === "completed",
    soft404Judged,
    brokenNow: (link) => broken.has(linkKey(link.url, link, withFragments)),
    target: (url) => targets.get(url),
    page: (url) => pages.get(url),
  };
  let unchecked: OpenLinkRecord[] = [];
  let read: OpenLinkRecord[] = [];
  // The rule reads the store synchronously: what it may ask of these links is read first, once per URL, a batch of
  // links at a time (one statement each for targets and pages, where one per URL was a round trip each on PostgreSQL).
  const judgeRead = async (): Promise<void> => {
    await holdUnheld(
      targets,
      read.map((link) => link.url),
      (urls) => repo.targets(crawl.id, urls),
    );
    await holdUnheld(
      pages,
      read.map((link) => link.source_url),
      (urls) => repo.pages(crawl.id, urls),
    );
    for (const link of read) {
      if (judgeOpenLink(link, found) !== "not_checked") continue;
      unchecked.push(link);
      if (unchecked.length >= WRITE_BATCH) {
        await repo.insertUnchecked(crawl.id, unchecked);
        unchecked = [];
      }
    }
    read = [];
  };
  for await (const link of repo.eachOpen(previous)) {
    read.push(link);
    if (read.length >= READ_BATCH) await judgeRead();
  }
  await judgeRead();
  await repo.insertUnchecked(crawl.id, unchecked);
}

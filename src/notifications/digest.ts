import type { ComparedCrawl } from "../store/changes.repo.ts";
import type { NotifyWhen } from "../core/channels.ts";
import type { CrawlFailure } from "../core/crawl-life.ts";
import { cleanText } from "./plain-text.ts";

/**
 * The digest of an ended crawl, built in the transaction that ends it and stored as the delivery's payload, so
 * every attempt formats the same facts. Bounded when built; each destination bounds it again (fit.ts).
 */

/** Targets kept per list, and linking pages kept per target. */
export const DIGEST_TARGETS = 25;
export const DIGEST_SOURCES = 3;
/** Longest URL, link text, error and warning kept (characters). */
export const URL_CHARS = 400;
export const TEXT_CHARS = 160;
export const ERROR_CHARS = 600;
const WARNINGS = 10;

/** A page linking to a listed target, with the link's text. */
export interface DigestSource {
  url: string;
  text: string;
}

/** A broken (or fixed) target with the pages that link to it. */
export interface DigestTarget {
  url: string;
  /** The HTTP status (0: no answer); for a fixed target, the status it had when it was broken. */
  status_code: number;
  error: string | null;
  /** Links of this list pointing at the target; `sources` holds the first few. */
  links: number;
  sources: DigestSource[];
  /**
   * Since when its first listed link is broken, as the crawl recorded it (crawler/broken-since.ts): a new one
   * since this crawl's start; a still broken one since the crawl that first found it broken, carried across
   * crawls that did not check it. Absent for fixed targets.
   */
  broken_since?: string;
}

/** One list: its totals and its first targets. */
export interface DigestSection {
  links: number;
  targets: number;
  items: DigestTarget[];
}

export interface Digest extends Omit<DigestCrawl, "id" | "status"> {
  crawl_id: string;
  status: "completed" | "failed";
  /**
   * The previous ended crawl (completed or failed) the lists compare against, as the crawl's changes do; null
   * for a domain's first crawl (every broken link is new) and for a crawl that never started (no lists).
   */
  compared_with: string | null;
  /** The domain's previous crawl had failed: this one is news even with no link changed. */
  previous_failed: boolean;
  new_broken: DigestSection;
  still_broken: DigestSection;
  fixed: DigestSection;
  /** Links open before this crawl (broken, or carried unchecked) that it did not check: neither fixed nor new. */
  not_checked: number;
  /** Set on the sample a channel's "Send test" sends. */
  test?: boolean;
}

/** The crawl fields a digest is made of. */
interface DigestCrawl {
  id: string;
  domain_name: string;
  status: string;
  failure: CrawlFailure | null;
  error: string | null;
  warnings: string[];
  truncated: boolean;
  pages_crawled: number;
  total_links: number;
  broken_links: number;
  started_at: string | null;
  completed_at: string | null;
}

type List = "new_broken" | "still_broken" | "fixed";

/** The store reads a digest needs (store/digest.repo.ts). */
interface DigestReader {
  count(list: List, crawlId: string, against: ComparedCrawl | null): Promise<{ links: number; targets: number }>;
  rows(
    list: List,
    crawlId: string,
    against: ComparedCrawl | null,
    maxTargets: number,
    maxSources: number,
  ): Promise<{ url: string; status_code: number; error: string | null; source_url: string; link_text: string; broken_since: string | null; links: number }[]>;
  notChecked(crawlId: string): Promise<number>;
  previousEnded(crawlId: string): Promise<{ status: "completed" | "failed"; failure: CrawlFailure | null } | undefined>;
}

const EMPTY: DigestSection = { links: 0, targets: 0, items: [] };

async function section(reader: DigestReader, list: List, crawlId: string, against: ComparedCrawl | null): Promise<DigestSection> {
  // Rows of one target come together; a new URL starts a new target (compared raw, before cleaning).
  let lastUrl: string | null = null;
  const totals = await reader.count(list, crawlId, against);
  if (totals.links === 0) return { ...EMPTY };
  const items: DigestTarget[] = [];
  for (const row of await reader.rows(list, crawlId, against, DIGEST_TARGETS, DIGEST_SOURCES)) {
    let item = items.at(-1);
    if (item === undefined || row.url !== lastUrl) {
      lastUrl = row.url;
      item = {
        url: cleanText(row.url, URL_CHARS),
        status_code: row.status_code,
        error: row.error === null ? null : cleanText(row.error, ERROR_CHARS),
        links: row.links,
        sources: [],
      };
      if (list !== "fixed" && row.broken_since !== null) item.broken_since = row.broken_since;
      items.push(item);
    }
    item.sources.push({ url: cleanText(row.source_url, URL_CHARS), text: cleanText(row.link_text, TEXT_CHARS) });
  }
  return { links: totals.links, targets: totals.targets, items };
}

/**
 * The digest of the just-ended crawl `crawl`, compared with `against` (crawler/open-links.ts comparedWith). A failed
 * crawl has lists too; one that never started has none.
 */
export async function buildDigest(reader: DigestReader, crawl: DigestCrawl, against: ComparedCrawl | null): Promise<Digest> {
  const completed = crawl.status === "completed";
  const started = crawl.started_at !== null;
  const digest: Digest = {
    crawl_id: crawl.id,
    domain_name: crawl.domain_name,
    status: completed ? "completed" : "failed",
    failure: crawl.failure,
    error: crawl.error === null ? null : cleanText(crawl.error, ERROR_CHARS),
    warnings: crawl.warnings.slice(0, WARNINGS).map((warning) => cleanText(warning, ERROR_CHARS)),
    truncated: crawl.truncated,
    pages_crawled: crawl.pages_crawled,
    total_links: crawl.total_links,
    broken_links: crawl.broken_links,
    started_at: crawl.started_at,
    completed_at: crawl.completed_at,
    compared_with: started ? (against?.id ?? null) : null,
    previous_failed: (await reader.previousEnded(crawl.id))?.status === "failed",
    new_broken: { ...EMPTY },
    still_broken: { ...EMPTY },
    fixed: { ...EMPTY },
    not_checked: 0,
  };
  if (!started) return digest;
  digest.new_broken = await section(reader, "new_broken", crawl.id, against);
  if (against !== null) {
    digest.still_broken = await section(reader, "still_broken", crawl.id, against);
    digest.fixed = await section(reader, "fixed", crawl.id, against);
    digest.not_checked = await reader.notChecked(crawl.id);
  }
  return digest;
}

/** True when a channel that wants `when` is sent this digest (core/channels.ts says what each mode means). */
export function wantsDigest(when: NotifyWhen, digest: Digest): boolean {
  const changed = digest.new_broken.links > 0 || digest.fixed.links > 0;
  if (digest.status === "failed") return digest.failure !== "cancelled" || when === "always" || (when === "changed" && changed);
  switch (when) {
    case "always":
      return true;
    case "failure":
      return false;
    case "changed":
      return changed || digest.previous_failed;
  }
}

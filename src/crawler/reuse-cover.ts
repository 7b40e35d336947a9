import { CRAWL_OPTION_ROWS, type CrawlOptionName } from "../core/crawl-option-table.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { IgnoreRules } from "../core/ignore-rules.ts";

/**
 * When a page's links as an earlier crawl recorded them are exactly the links this crawl would record from the
 * same body (docs/decisions.md, "Incremental audits"). The recorded links are what was left after the options
 * and the ignore rules gated the page's links, first occurrence per target; so every option that shapes that
 * gating must be the same, not merely on there: with `scan_images` on, `<img src=x>` before `<a href=x>` is
 * recorded as the image, and a crawl without it would record the anchor, which the earlier rows do not hold.
 * The limits that cut a page (max_links_per_page, max_body_bytes) are server settings, judged per page against
 * what the page held (page-reuse.ts), not here.
 */

/** Options that act only after a page's links are taken: they may differ between the two crawls. */
const AFTER_THE_PAGE: ReadonlySet<CrawlOptionName> = new Set(["use_sitemap", "soft_404_broken"]);

/** What of a crawl decides which of a page's links it records. */
export interface LinkGating {
  options: CrawlOptions;
  ignoreRules: IgnoreRules;
}

/**
 * True when `previous`'s recorded page links are this crawl's (`current`) too: every option that gates a page's
 * links the same (new options count as gating until listed in AFTER_THE_PAGE; `check_fragments` among them, as
 * fragments change what a page's Links are), and the same ignore rules in the same order (the first matching
 * mute rule names itself in a stored verdict).
 */
export function previousCovers(previous: LinkGating, current: LinkGating): boolean {
  for (const [name] of CRAWL_OPTION_ROWS) {
    if (AFTER_THE_PAGE.has(name)) continue;
    if (previous.options[name] !== current.options[name]) return false;
  }
  return sameList(previous.ignoreRules.exclude, current.ignoreRules.exclude) && sameList(previous.ignoreRules.mute, current.ignoreRules.mute);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

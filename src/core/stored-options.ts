import { CRAWL_OPTION_ROWS } from "./crawl-option-table.ts";
import type { CrawlOptions } from "./crawl-options.ts";

/**
 * Crawl options as read back from the store. A document stored before an option existed leaves it out, which
 * means off; filling it in keeps every reader (API answers, the crawler) seeing the full set. Kept apart from
 * the zod schema so the crawl workers, which read crawls, do not load zod.
 */
const ALL_OFF = Object.fromEntries(CRAWL_OPTION_ROWS.map(([name]) => [name, false])) as CrawlOptions;

/** Stored options with the options they predate filled in as off. */
export function withDefaultOptions(stored: Partial<CrawlOptions>): CrawlOptions {
  return { ...ALL_OFF, ...stored };
}

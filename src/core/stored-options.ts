import type { CrawlOptions } from "./crawl-options.ts";

/**
 * Crawl options as read back from the store. A document stored before an option existed leaves it out, which
 * means off; filling it in keeps every reader (API answers, the crawler) seeing the full set. Kept apart from
 * the zod schema so the crawl workers, which read crawls, do not load zod.
 */
const ALL_OFF: CrawlOptions = {
  scan_images: false,
  scan_scripts: false,
  scan_stylesheets: false,
  follow_external: false,
  scan_media: false,
  check_fragments: false,
  use_sitemap: false,
  soft_404_broken: false,
};

/** Stored options with the options they predate filled in as off. */
export function withDefaultOptions(stored: Partial<CrawlOptions>): CrawlOptions {
  return { ...ALL_OFF, ...stored };
}

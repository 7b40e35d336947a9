/**
 * The depth stored for a target first found in a sitemap rather than on a page: no crawled page leads to it.
 * Such targets are the crawl's orphan pages (docs/decisions.md, "Sitemaps: entries are Links, orphans are
 * targets no page led to"); the store lists them by this value.
 */
export const UNLINKED_DEPTH = -1;

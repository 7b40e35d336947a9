/**
 * The bounds on reading a crawl's sitemaps (docs/api.md, "Sitemaps and orphan pages"). They live in core because
 * the crawl warnings that report them name them (core/crawl-warnings.ts); the crawler enforces them.
 */

/** Bytes of one sitemap read at most, after decompression; the rest is not read (a crawl warning says so). */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
/** URLs taken from one sitemap at most: the protocol's own limit per file. */
export const SITEMAP_MAX_URLS = 50_000;
/** Sitemaps (indexes included) read per crawl at most. */
export const MAX_SITEMAPS = 50;
/** Distinct URLs taken from all sitemaps of a crawl at most. */
export const MAX_SITEMAP_URLS = 100_000;
/**
 * Nesting past which reading a sitemap stops: a sitemap needs four levels, and deeper markup costs the XML tokenizer
 * a search of all open elements per stray end tag (docs/decisions.md, "Sitemap budgets").
 */
export const SITEMAP_MAX_DEPTH = 16;
/**
 * Milliseconds of parsing one sitemap may take; reading is cut there, keeping what was read. A backstop: no
 * sitemap shape measured under the nesting cap takes half of it (bench/README.md, "Sitemap budgets").
 */
export const SITEMAP_PARSE_BUDGET_MS = 10_000;

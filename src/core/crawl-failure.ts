/**
 * Why a crawl ended `failed`, as a closed set: clients and `check` decide on the kind (a site that is down is
 * a finding, exit 1; a crawl that ran out of time is a run error, exit 2), people read the crawl's `error`.
 */

export const CRAWL_FAILURES = [
  "start_page", // the start page could not be crawled: broken, unreachable, off-site, not HTML, or disallowed
  "max_duration", // crawler.max_duration passed
  "cancelled", // a client cancelled it
  "internal", // the crawl stopped unexpectedly (a crashed worker)
] as const;

export type CrawlFailure = (typeof CRAWL_FAILURES)[number];

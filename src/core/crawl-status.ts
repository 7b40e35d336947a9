/** A crawl's lifecycle: pending → running → completed | failed. */
export const CRAWL_STATUSES = ["pending", "running", "completed", "failed"] as const;
export type CrawlStatus = (typeof CRAWL_STATUSES)[number];

/** Who started a crawl: an API call, someone in the dashboard, or the domain's schedule. */
export const CRAWL_TRIGGERS = ["api", "dashboard", "schedule"] as const;
export type CrawlTrigger = (typeof CRAWL_TRIGGERS)[number];

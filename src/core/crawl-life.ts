/**
 * A crawl's life in one vocabulary. A cancel stays a cancel inside; only at the edge (`storedEnd`) does it become
 * the spec's `failed` with failure "cancelled".
 */

/** The states of a crawl row, as the spec names them: pending → running → completed | failed. */
export const CRAWL_STATUSES = ["pending", "running", "completed", "failed"] as const;
export type CrawlStatus = (typeof CRAWL_STATUSES)[number];

/** Whether a crawl in `status` is still to run or running (it holds its domain; its counts may still move). */
export function isActive(status: CrawlStatus): boolean {
  return status === "pending" || status === "running";
}

/** Who started a crawl: an API call, someone in the dashboard, or the domain's schedule. */
export const CRAWL_TRIGGERS = ["api", "dashboard", "schedule"] as const;
export type CrawlTrigger = (typeof CRAWL_TRIGGERS)[number];

/**
 * Why a crawl ended `failed`, as stored and answered: clients and `check` decide on the kind (a site that is down
 * is a finding, exit 1; a crawl that ran out of time is a run error, exit 2), people read the crawl's `error`.
 */
export const CRAWL_FAILURES = [
  "start_page", // the start page could not be crawled: broken, unreachable, off-site, not HTML, or disallowed
  "max_duration", // crawler.max_duration passed
  "cancelled", // a client cancelled it
  "internal", // the crawl stopped unexpectedly (a crashed worker)
] as const;
export type CrawlFailure = (typeof CRAWL_FAILURES)[number];

/** Why a crawl's run is asked to stop before its frontier runs out: a client's cancel, the service's shutdown, its time limit. */
export type StopReason = "cancelled" | "shutdown" | "max_duration";

/** How a crawl ends for good. */
export type CrawlEnd = { kind: "completed" } | { kind: "cancelled" } | { kind: "failed"; failure: Exclude<CrawlFailure, "cancelled">; error: string };

/**
 * How one run of a crawl's job ends: the crawl ended, or it is left running ("stopped": resumes; "paused": taken
 * up later; "crashed": the pool fails it), or it was "gone" before the job looked.
 */
export type JobEnd = CrawlEnd | { kind: "stopped" } | { kind: "paused"; reason: string } | { kind: "crashed"; error: string } | { kind: "gone" };

/** A crawl's end as its row holds it and the spec answers it. */
export interface StoredEnd {
  status: "completed" | "failed";
  failure: CrawlFailure | null;
  error: string | null;
}

/** The edge: the spec's status, failure and error of `end`. */
export function storedEnd(end: CrawlEnd): StoredEnd {
  switch (end.kind) {
    case "completed":
      return { status: "completed", failure: null, error: null };
    case "cancelled":
      return { status: "failed", failure: "cancelled", error: "cancelled" };
    case "failed":
      return { status: "failed", failure: end.failure, error: end.error };
  }
}

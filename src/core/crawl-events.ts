/**
 * The webhook events a crawl's life produces, with the payloads docs/webhooks.md documents, built
 * from the crawl as it is at the state change. Pure: crawler/crawl-transitions.ts calls these inside the
 * transaction that makes the change, so an event exists exactly when its cause does.
 */
import { storedEnd, type CrawlEnd } from "./crawl-life.ts";
import { describeWarnings, warningCauses, type WarningEntry } from "./crawl-warnings.ts";

/** The event kinds a webhook may subscribe to, in the order docs/webhooks.md lists them. */
export const WEBHOOK_EVENT_KINDS = ["crawl.started", "crawl.completed", "crawl.failed", "broken_links.found"] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** How many broken links a `broken_links.found` event names. */
export const SAMPLE_LINKS = 10;

/** One event to deliver: its kind, when it happened and its `data`. */
export interface CrawlEvent {
  event: WebhookEventKind;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The crawl fields the payloads are made of. */
interface CrawlFacts {
  id: string;
  domain_name: string;
  /** Its warnings, aggregated per cause: the payloads carry their texts and causes, so a body stays small. */
  warnings: readonly WarningEntry[];
  total_links: number;
  broken_links: number;
  /** Broken links that were not open before this crawl (an extra field in the end events). */
  new_broken_links: number | null;
  started_at: string | null;
  completed_at: string | null;
}

/** `crawl.started`, when a crawl begins running. */
export function startedEvent(crawl: Pick<CrawlFacts, "id" | "domain_name" | "started_at">): CrawlEvent {
  const startedAt = crawl.started_at ?? new Date().toISOString();
  return { event: "crawl.started", timestamp: startedAt, data: { crawl_id: crawl.id, domain_name: crawl.domain_name, started_at: startedAt } };
}

/**
 * The events of a crawl that has just ended as `end` says: completed (+ broken_links.found when any), or
 * `crawl.failed` with the spec's failure (a cancel's is "cancelled").
 */
export function endedEvents(crawl: CrawlFacts, end: CrawlEnd, sample: { url: string; status_code: number }[]): CrawlEvent[] {
  const timestamp = crawl.completed_at ?? new Date().toISOString();
  const base = { crawl_id: crawl.id, domain_name: crawl.domain_name };
  const warnings = { warnings: describeWarnings(crawl.warnings), warning_causes: warningCauses(crawl.warnings) };
  if (end.kind !== "completed") {
    // What it had found when it ended (a cancelled crawl's counts are final: crawler/crawl-transitions.ts).
    const { error, failure } = storedEnd(end);
    const counts = { total_links: crawl.total_links, broken_links: crawl.broken_links };
    return [{ event: "crawl.failed", timestamp, data: { ...base, error, failure, ...counts, ...warnings } }];
  }
  const started = Date.parse(crawl.started_at ?? timestamp);
  const events: CrawlEvent[] = [
    {
      event: "crawl.completed",
      timestamp,
      data: {
        ...base,
        total_links: crawl.total_links,
        broken_links: crawl.broken_links,
        duration_seconds: Math.max(0, Math.round((Date.parse(timestamp) - started) / 1000)),
        new_broken_links: crawl.new_broken_links ?? 0,
        ...warnings,
      },
    },
  ];
  if (crawl.broken_links > 0) {
    events.push({
      event: "broken_links.found",
      timestamp,
      data: { ...base, broken_count: crawl.broken_links, new_broken_links: crawl.new_broken_links ?? 0, sample_links: sample.slice(0, SAMPLE_LINKS) },
    });
  }
  return events;
}

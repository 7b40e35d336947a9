/**
 * The event kinds a webhook can subscribe to, and the shape of what each one sends. A plain `as const` list
 * rather than a zod enum so the deliverer, the dispatcher and the docs share it without pulling in the API's
 * schemas; the API builds its zod enum from this list. `webhook.test` is not subscribable: it is only ever sent
 * by POST /webhooks/{id}/test.
 */

import { SAMPLE_LINKS, WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../core/crawl-events.ts";

/** Every event kind a webhook may subscribe to (core/crawl-events.ts holds the list and builds the payloads). */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_KINDS;

/** One subscribable event kind. */
export type WebhookEvent = WebhookEventKind;

/** The event kind of the test delivery; never subscribable. */
export const TEST_EVENT = "webhook.test";

/** The kind of anything linkpatrol delivers. */
export type DeliveredEvent = WebhookEvent | typeof TEST_EVENT;

/** True when `value` is a subscribable event kind. */
export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** Most broken links a `broken_links.found` event lists in `sample_links`. */
export const MAX_SAMPLE_LINKS = SAMPLE_LINKS;

/** The `data` object of each event kind (docs/webhooks.md shows examples). */
export interface EventData {
  "crawl.started": { crawl_id: string; domain_name: string; started_at: string };
  "crawl.completed": {
    crawl_id: string;
    domain_name: string;
    total_links: number;
    broken_links: number;
    duration_seconds: number;
    /** Extra field: broken links that were not open before this crawl (neither broken in the previous one nor carried by it). */
    new_broken_links: number;
  };
  "crawl.failed": { crawl_id: string; domain_name: string; error: string };
  "broken_links.found": {
    crawl_id: string;
    domain_name: string;
    broken_count: number;
    /** Extra field, as in crawl.completed. */
    new_broken_links: number;
    sample_links: { url: string; status_code: number }[];
  };
  "webhook.test": { webhook_id: string; message: string };
}

/** The JSON body of every delivery; `id` is the delivery id, also sent as X-Service-Delivery. */
export interface WebhookEnvelope<E extends DeliveredEvent = DeliveredEvent> {
  id: string;
  event: E;
  /** When the event happened (ISO 8601, UTC), not when this attempt was made. */
  timestamp: string;
  data: EventData[E];
}

/**
 * The event kinds a webhook can subscribe to. A plain `as const` list
 * rather than a zod enum so the deliverer, the dispatcher and the docs share it without pulling in the API's
 * schemas; the API builds its zod enum from this list. `webhook.test` is not subscribable: it is only ever sent
 * by POST /webhooks/{id}/test.
 */

import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../core/crawl-events.ts";

/** Every event kind a webhook may subscribe to (core/crawl-events.ts holds the list and builds the payloads). */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_KINDS;

/** One subscribable event kind. */
type WebhookEvent = WebhookEventKind;

/** The event kind of the test delivery; never subscribable. */
export const TEST_EVENT = "webhook.test";

/** True when `value` is a subscribable event kind. */
export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

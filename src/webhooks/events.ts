/**
 * Webhook event kinds as a plain list, so deliverer, dispatcher and docs share it without the API's zod schemas.
 * `webhook.test` is not subscribable.
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

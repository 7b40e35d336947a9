import { z } from "zod";
import { WEBHOOK_EVENT_KINDS } from "../core/crawl-events.ts";
import { DELIVERY_STATES } from "../core/delivery-state.ts";
import type { AttemptRecord, DeliveryRecord } from "../store/deliveries.repo.ts";
import type { WebhookRecord } from "../store/webhooks.repo.ts";

/**
 * Webhooks, deliveries and attempts as clients see them (docs/api.md "Webhooks"). The
 * secret appears only in the creation answer (WebhookCreatedSchema); every other view leaves it out.
 */

export const WebhookEventSchema = z.enum(WEBHOOK_EVENT_KINDS).meta({ id: "WebhookEvent" });

export const WebhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    name: z.string().nullable(),
    events: z.array(WebhookEventSchema),
    active: z.boolean(),
    /** Why an inactive webhook was switched off (410 Gone, failing too long); null while active. */
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Webhook" });

export const WebhookCreatedSchema = WebhookSchema.extend({
  /** The signing secret; returned only here. */
  secret: z.string(),
}).meta({ id: "WebhookCreated" });

export const AttemptSchema = z
  .object({
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    /** The receiver's answer, cut to 1 KiB. */
    response_body: z.string(),
    attempted_at: z.string(),
  })
  .meta({ id: "WebhookAttempt" });

export const DeliverySchema = z
  .object({
    /** Also the X-Service-Delivery header and the payload's `id`; the same on every attempt. */
    id: z.uuid(),
    event: z.string(),
    state: z.enum(DELIVERY_STATES),
    next_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    attempts: z.array(AttemptSchema),
  })
  .meta({ id: "WebhookDelivery" });

export const TestResultSchema = z
  .object({
    delivered: z.boolean(),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: "WebhookTestResult" });

export type WebhookView = z.output<typeof WebhookSchema>;
export type WebhookCreatedView = z.output<typeof WebhookCreatedSchema>;
export type DeliveryView = z.output<typeof DeliverySchema>;
export type TestResultView = z.output<typeof TestResultSchema>;

export function toWebhookView(row: WebhookRecord): WebhookView {
  return {
    id: row.id,
    url: row.url,
    name: row.name,
    events: row.events as WebhookView["events"],
    active: row.active,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
  };
}

export function toDeliveryView(delivery: DeliveryRecord, attempts: AttemptRecord[]): DeliveryView {
  return {
    id: delivery.id,
    event: delivery.event,
    state: delivery.state,
    next_attempt_at: delivery.next_attempt_at,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    created_at: delivery.created_at,
    delivered_at: delivery.delivered_at,
    attempts: attempts.map(({ delivery_id: _, ...attempt }) => attempt),
  };
}

import { z } from "@hono/zod-openapi";
import { DeliverySchema, WebhookCreatedSchema, WebhookEventSchema, WebhookSchema } from "../../services/webhook-view.ts";
import { PageMeta } from "./common.ts";

/**
 * Request bodies, path parameters and envelopes of /webhooks; the resources themselves are
 * services/webhook-view.ts. The URL is checked for shape here (400) and for policy by the service (422).
 */

/** `events` omitted or empty: every current kind, stored as an explicit list. Unknown kinds are a 400. */
export const CreateWebhookBody = z
  .strictObject({
    url: z.url().max(2048).openapi({ example: "https://hooks.example.com/linkpatrol" }),
    name: z.string().trim().min(1).max(200).optional().openapi({ example: "ops channel" }),
    events: z.array(WebhookEventSchema).max(16).optional(),
  })
  .openapi("CreateWebhook");

/** PATCH /webhooks/{id}: any of the three; the URL and the secret never change (create a new webhook instead). */
export const UpdateWebhookBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).nullable().optional(),
    events: z.array(WebhookEventSchema).max(16).optional(),
    active: z.boolean().optional().openapi({ description: "true switches an inactive webhook back on" }),
  })
  .openapi("UpdateWebhook");

export const DeliveryParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" } }),
  delivery_id: z.uuid().openapi({ param: { name: "delivery_id", in: "path" } }),
});

export const WebhookCreatedEnvelope = z.object({ data: WebhookCreatedSchema, meta: z.object({ warning: z.string() }) }).openapi("WebhookCreatedEnvelope");
export const WebhookListSchema = z.object({ data: z.array(WebhookSchema), meta: z.object({ total: z.number().int() }) }).openapi("WebhookList");
export const DeliveryListSchema = z.object({ data: z.array(DeliverySchema), meta: PageMeta }).openapi("WebhookDeliveryList");

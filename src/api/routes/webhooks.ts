import { OpenAPIHono } from "@hono/zod-openapi";
import { TestResultSchema, WebhookSchema } from "../../services/webhook-view.ts";
import { SECRET_WARNING, type WebhooksService } from "../../services/webhooks.service.ts";
import type { AppEnv } from "../../http/env.ts";
import { dataOf, ErrorSchema, errorResponses, IdParam, jsonContent } from "../../http/schemas/common.ts";
import { CreateWebhookBody, DeliveryListSchema, UpdateWebhookBody, WebhookCreatedEnvelope, WebhookListSchema } from "../../http/schemas/webhooks.ts";
import { jsonBody, securedRoute } from "../secured-route.ts";
import { validationHook } from "../validation-hook.ts";
import { withDeliveries } from "./delivery-routes.ts";

/** /webhooks: handlers only validate, call WebhooksService and return JSON. */

const createWebhook = securedRoute("webhooks", "webhooks:write", {
  method: "post",
  path: "/webhooks",
  summary: "Register a webhook endpoint; the signing secret is in this answer only",
  request: { body: jsonBody(CreateWebhookBody) },
  responses: {
    201: jsonContent(WebhookCreatedEnvelope, "the new webhook with its secret, and a warning to save it"),
    ...errorResponses(400, 413, 415, 422),
    422: jsonContent(ErrorSchema, "unsafe_url: scheme not allowed, credentials in the URL, or a private address"),
  },
});

const listWebhooks = securedRoute("webhooks", "webhooks:read", {
  method: "get",
  path: "/webhooks",
  summary: "List every webhook, newest first (never the secrets)",
  responses: { 200: jsonContent(WebhookListSchema, "all webhooks"), ...errorResponses() },
});

const deleteWebhook = securedRoute("webhooks", "webhooks:write", {
  method: "delete",
  path: "/webhooks/{id}",
  summary: "Remove a webhook; its pending deliveries are dropped",
  request: { params: IdParam },
  responses: { 204: { description: "removed" }, ...errorResponses(404) },
});

const updateWebhook = securedRoute("webhooks", "webhooks:write", {
  method: "patch",
  path: "/webhooks/{id}",
  summary: "Rename, re-subscribe, or switch a webhook on or off",
  request: { params: IdParam, body: jsonBody(UpdateWebhookBody) },
  responses: { 200: jsonContent(dataOf(WebhookSchema), "the webhook"), ...errorResponses(400, 404, 413, 415) },
});

const testWebhook = securedRoute("webhooks", "webhooks:write", {
  method: "post",
  path: "/webhooks/{id}/test",
  summary: "Send a signed webhook.test event now and report what happened",
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(TestResultSchema), "the outcome of the one attempt"), ...errorResponses(404) },
});

/** The /webhooks router. */
export function webhooksRouter(service: WebhooksService) {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createWebhook, async (c) => {
      const webhook = await service.create(c.req.valid("json"));
      return c.json({ data: webhook, meta: { warning: SECRET_WARNING } }, 201);
    })
    .openapi(listWebhooks, async (c) => {
      const { items, total } = await service.list();
      return c.json({ data: items, meta: { total } }, 200);
    })
    .openapi(deleteWebhook, async (c) => {
      await service.delete(c.req.valid("param").id);
      return c.body(null, 204);
    })
    .openapi(updateWebhook, async (c) => c.json({ data: await service.update(c.req.valid("param").id, c.req.valid("json")) }, 200))
    .openapi(testWebhook, async (c) => c.json({ data: await service.test(c.req.valid("param").id) }, 200));
  return withDeliveries(router, "webhook", { read: "webhooks:read", write: "webhooks:write" }, DeliveryListSchema, service);
}

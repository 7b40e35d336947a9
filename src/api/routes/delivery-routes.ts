import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Scope } from "../../core/scopes.ts";
import type { AppEnv } from "../../http/env.ts";
import { dataOf, ErrorSchema, errorResponses, IdParam, jsonContent, PaginationQuery } from "../../http/schemas/common.ts";
import { DeliveryParams } from "../../http/schemas/webhooks.ts";
import { DeliverySchema, type DeliveryView } from "../../services/webhook-view.ts";
import { securedRoute } from "../secured-route.ts";

/**
 * A webhook's and a notification channel's delivery log and redeliver (one outbox, one log): the same two
 * operations under /webhooks/{id} and /channels/{id}.
 */
export function withDeliveries(
  router: OpenAPIHono<AppEnv>,
  owner: "webhook" | "channel",
  scopes: { read: Scope; write: Scope },
  listSchema: z.ZodType,
  service: {
    deliveries(id: string, page: number, limit: number): Promise<{ items: DeliveryView[]; total: number }>;
    redeliver(id: string, deliveryId: string): Promise<DeliveryView>;
  },
) {
  const tag = `${owner}s`;
  const listDeliveries = securedRoute(tag, scopes.read, {
    method: "get",
    path: `/${tag}/{id}/deliveries`,
    summary: `The ${owner}'s deliveries, newest first, with every attempt`,
    request: { params: IdParam, query: PaginationQuery },
    responses: { 200: jsonContent(listSchema, "one page of deliveries"), ...errorResponses(400, 404) },
  });
  const redeliver = securedRoute(tag, scopes.write, {
    method: "post",
    path: `/${tag}/{id}/deliveries/{delivery_id}/redeliver`,
    summary: "Queue an ended (dead or delivered) delivery again, due now",
    request: { params: DeliveryParams },
    responses: {
      200: jsonContent(dataOf(DeliverySchema), "the delivery, pending again"),
      ...errorResponses(404, 409),
      409: jsonContent(ErrorSchema, `conflict: the delivery is still pending, or the ${owner} is inactive`),
    },
  });
  return router
    .openapi(listDeliveries, async (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = await service.deliveries(c.req.valid("param").id, page, limit);
      return c.json({ data: items, meta: { page, limit, total } }, 200);
    })
    .openapi(redeliver, async (c) => {
      const { id, delivery_id } = c.req.valid("param");
      return c.json({ data: await service.redeliver(id, delivery_id) }, 200);
    });
}

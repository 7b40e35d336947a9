import { OpenAPIHono } from "@hono/zod-openapi";
import { ChannelSchema, ChannelTestResultSchema } from "../../services/channel-view.ts";
import type { ChannelInput, ChannelsService } from "../../services/channels.service.ts";
import type { AppEnv } from "../../http/env.ts";
import { ChannelDeliveryListSchema, ChannelListSchema, CreateChannelBody, UpdateChannelBody } from "../../http/schemas/channels.ts";
import { dataOf, ErrorSchema, errorResponses, IdParam, jsonContent } from "../../http/schemas/common.ts";
import { jsonBody, securedRoute } from "../secured-route.ts";
import { validationHook } from "../validation-hook.ts";
import { withDeliveries } from "./delivery-routes.ts";

/** /channels (notification channels): handlers only validate, call ChannelsService and return JSON. */

const TAG = "channels";

const createChannel = securedRoute(TAG, "notifications:write", {
  method: "post",
  path: "/channels",
  summary: "Create an email or chat notification channel; its secrets are never returned",
  request: { body: jsonBody(CreateChannelBody) },
  responses: {
    201: jsonContent(dataOf(ChannelSchema), "the new channel, without its secrets"),
    ...errorResponses(400, 413, 415, 422),
    422: jsonContent(ErrorSchema, "unsafe_url: a chat URL's scheme is not allowed, it has credentials, or names a private address"),
  },
});

const listChannels = securedRoute(TAG, "notifications:read", {
  method: "get",
  path: "/channels",
  summary: "List every notification channel, newest first (never the secrets)",
  responses: { 200: jsonContent(ChannelListSchema, "all channels"), ...errorResponses() },
});

const getChannel = securedRoute(TAG, "notifications:read", {
  method: "get",
  path: "/channels/{id}",
  summary: "One notification channel",
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(ChannelSchema), "the channel"), ...errorResponses(404) },
});

const updateChannel = securedRoute(TAG, "notifications:write", {
  method: "patch",
  path: "/channels/{id}",
  summary: "Rename a channel, change when it is told or for which domains, or switch it on or off",
  request: { params: IdParam, body: jsonBody(UpdateChannelBody) },
  responses: { 200: jsonContent(dataOf(ChannelSchema), "the channel"), ...errorResponses(400, 404, 413, 415) },
});

const deleteChannel = securedRoute(TAG, "notifications:write", {
  method: "delete",
  path: "/channels/{id}",
  summary: "Remove a channel; its pending deliveries are dropped",
  request: { params: IdParam },
  responses: { 204: { description: "removed" }, ...errorResponses(404) },
});

const testChannel = securedRoute(TAG, "notifications:write", {
  method: "post",
  path: "/channels/{id}/test",
  summary: "Send a sample digest now and report what happened",
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(ChannelTestResultSchema), "the outcome of the one attempt"), ...errorResponses(404) },
});

/** The /channels router. */
export function channelsRouter(service: ChannelsService) {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createChannel, async (c) => c.json({ data: await service.create(c.req.valid("json") as ChannelInput) }, 201))
    .openapi(listChannels, async (c) => {
      const { items, total } = await service.list();
      return c.json({ data: items, meta: { total } }, 200);
    })
    .openapi(getChannel, async (c) => c.json({ data: await service.get(c.req.valid("param").id) }, 200))
    .openapi(updateChannel, async (c) => c.json({ data: await service.update(c.req.valid("param").id, c.req.valid("json")) }, 200))
    .openapi(deleteChannel, async (c) => {
      await service.delete(c.req.valid("param").id);
      return c.body(null, 204);
    })
    .openapi(testChannel, async (c) => c.json({ data: await service.test(c.req.valid("param").id) }, 200));
  return withDeliveries(router, "channel", { read: "notifications:read", write: "notifications:write" }, ChannelDeliveryListSchema, service);
}

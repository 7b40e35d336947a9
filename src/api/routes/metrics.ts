import { OpenAPIHono, z } from "@hono/zod-openapi";
import { PROMETHEUS_CONTENT_TYPE } from "../../metrics/registry.ts";
import type { ServiceMetrics } from "../../metrics/service-metrics.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../http/schemas/common.ts";
import { securedRoute } from "../secured-route.ts";

/** GET /metrics on the API listener (metrics.port null): the Prometheus text, for keys with metrics:read. */

const metricsRoute = securedRoute(
  "service",
  "metrics:read",
  {
    method: "get",
    path: "/metrics",
    summary: "Prometheus metrics (text exposition format 0.0.4)",
    responses: {
      200: { description: "the metrics", content: { "text/plain": { schema: z.string() } } },
      ...errorResponses(),
    },
  },
  // Request counts and crawl progress live in this process, not in the store: every scrape renders them anew.
  { fromStore: false },
);

export function metricsRouter(metrics: ServiceMetrics) {
  return new OpenAPIHono<AppEnv>().openapi(metricsRoute, async (c) => c.text(await metrics.render(), 200, { "content-type": PROMETHEUS_CONTENT_TYPE }));
}

/** The whole app of a separate metrics listener (metrics.port set): /metrics without a key, 404 otherwise. */
export function metricsListenerFetch(metrics: ServiceMetrics): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== "/metrics") return new Response("not found\n", { status: 404 });
    if (request.method !== "GET" && request.method !== "HEAD") return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
    return new Response(request.method === "HEAD" ? null : await metrics.render(), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE } });
  };
}

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { ServiceMetrics } from "../../../metrics/service-metrics.ts";
import type { AppEnv } from "../../../http/env.ts";

/**
 * Times every request into the duration histogram, labelled by the route's pattern (/v1/crawls/:id, never the
 * raw path, which would make a series per id) or "unmatched" for unknown paths.
 */
export function requestMetrics(metrics: ServiceMetrics): MiddlewareHandler<AppEnv> {
  return async function requestMetricsMiddleware(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = routePath(c, -1);
      metrics.recordRequest(route === "*" || route === "/*" ? "unmatched" : route, c.req.method, c.res.status, (performance.now() - started) / 1000);
    }
  };
}

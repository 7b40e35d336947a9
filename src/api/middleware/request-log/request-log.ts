import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../../core/logger.ts";
import type { AppEnv } from "../../env.ts";

/** One info line per request: method, path (no query string, which could carry tokens), status, duration. */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function requestLogMiddleware(c, next) {
    if (!logger.enabled("info")) return next();
    const started = performance.now();
    await next();
    logger.info("request", {
      request_id: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      key_id: c.get("principal")?.keyId,
    });
  };
}

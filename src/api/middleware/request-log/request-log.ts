import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../../core/logger.ts";
import type { AppEnv } from "../../../http/env.ts";

interface RequestLogEntry {
  requestId: string;
  method: string;
  /** Without the query string, which could carry tokens. */
  path: string;
  status: number;
  durationMs: number;
  keyId: string | undefined;
  /** The client's address (a trusted proxy's word, or the peer's). */
  client: string | undefined;
}

/** The one info line of a request. */
function logRequest(logger: Logger, entry: RequestLogEntry): void {
  logger.info("request", {
    request_id: entry.requestId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    duration_ms: Math.round(entry.durationMs * 10) / 10,
    key_id: entry.keyId,
    client: entry.client,
  });
}

/** Logs every request at info (and costs nothing when info lines are dropped). */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function requestLogMiddleware(c, next) {
    if (!logger.enabled("info")) return next();
    const started = performance.now();
    await next();
    logRequest(logger, {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: performance.now() - started,
      keyId: c.get("principal")?.keyId,
      client: c.get("clientAddress"),
    });
  };
}

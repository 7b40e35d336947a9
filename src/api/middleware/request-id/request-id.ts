import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env.ts";

/**
 * Keeps a caller's `X-Request-Id` when it is short and plain, else makes one; echoes it on the response. The
 * header is set before the route runs: Hono puts headers set then on whatever response the route, the cache
 * or the error handler makes, which costs less than changing the finished response.
 */
const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function requestId(options: { header?: string } = {}): MiddlewareHandler<AppEnv> {
  const header = options.header ?? "X-Request-Id";
  return function requestIdMiddleware(c, next) {
    const incoming = c.req.header(header);
    const id = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", id);
    c.header(header, id);
    return next();
  };
}

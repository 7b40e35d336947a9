import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/env.ts";

const REQUEST_ID_HEADER = "X-Request-Id";
const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A caller's `X-Request-Id` when it is short and plain, else a new one. */
function chooseRequestId(incoming: string | null | undefined): string {
  return incoming && ACCEPTABLE_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * Gives every request its id and echoes it on the response. The header is set before the route runs: Hono puts
 * headers set then on whatever response the route, the cache or the error handler makes, which costs less than
 * changing the finished response.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return function requestIdMiddleware(c, next) {
    const id = chooseRequestId(c.req.header(REQUEST_ID_HEADER));
    c.set("requestId", id);
    c.header(REQUEST_ID_HEADER, id);
    return next();
  };
}

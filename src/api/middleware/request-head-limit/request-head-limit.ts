import type { MiddlewareHandler } from "hono";
import { HeadersTooLargeError } from "../../../core/errors.ts";
import type { AppEnv } from "../../../http/env.ts";

/**
 * The request-head limit, answered 431 `headers_too_large` in the error envelope; serve-api.ts raises Bun's own
 * (bare) limit above this one.
 */

/** Largest request head served, in bytes: what Bun's (and Node's) parser accepted by default before. */
const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/** The size of `request`'s head as sent: request line and `name: value` lines (a close estimate, not a byte count). */
function requestHeadBytes(request: Request): number {
  // The URL is absolute here (scheme and Host included), so this errs on the large side by a few bytes.
  let bytes = request.method.length + request.url.length + 12;
  request.headers.forEach((value, name) => {
    bytes += name.length + value.length + 4;
  });
  return bytes;
}

/** Refuses a request whose head is over `maxBytes`, before credentials are even looked at. */
export function requestHeadLimit(maxBytes = MAX_REQUEST_HEAD_BYTES): MiddlewareHandler<AppEnv> {
  return function requestHeadLimitMiddleware(c, next) {
    const bytes = requestHeadBytes(c.req.raw);
    if (bytes > maxBytes) {
      throw new HeadersTooLargeError(`request URL and headers are about ${bytes} bytes; the limit is ${maxBytes}`);
    }
    return next();
  };
}

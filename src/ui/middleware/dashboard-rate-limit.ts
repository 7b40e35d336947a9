import type { MiddlewareHandler } from "hono";
import { enforce, type RateLimiter } from "../../http/rate-limit.ts";
import type { UiEnv } from "../ui-env.ts";

/**
 * The dashboard's rate limit, applied once the session is read (the API's limiter leaves dashboard paths to it):
 * a signed-in request counts against its session's key, so a crowd on the same address (a guesser at the sign-in
 * form, everyone behind one proxy) cannot lock a signed-in user out; a signed-out one (sign-in page, assets,
 * the redirect to sign in) against its client address. Sign-in attempts are left to the sign-in backoff. A
 * refusal is thrown to the dashboard's error page, which carries the dashboard's headers and Retry-After.
 */
export function dashboardRateLimit(limiter: RateLimiter): MiddlewareHandler<UiEnv> {
  return function dashboardRateLimitMiddleware(c, next) {
    if (c.req.method === "POST" && c.req.path === "/ui/sign-in") return next();
    const viewer = c.get("viewer");
    return enforce(c, viewer !== null ? limiter.takeForViewer(viewer.principal.keyId) : limiter.takeForVisitor(c.get("clientAddress")), next);
  };
}

import type { MiddlewareHandler } from "hono";
import { enforce, type RateLimiter } from "../../http/rate-limit.ts";
import type { UiEnv } from "../ui-env.ts";

/**
 * The dashboard's rate limit, once the session is known: per session key when signed in, so a crowd on one
 * address cannot lock a user out; per address otherwise.
 */
export function dashboardRateLimit(limiter: RateLimiter): MiddlewareHandler<UiEnv> {
  return function dashboardRateLimitMiddleware(c, next) {
    if (c.req.method === "POST" && c.req.path === "/ui/sign-in") return next();
    const viewer = c.get("viewer");
    return enforce(c, viewer !== null ? limiter.takeForViewer(viewer.principal.keyId) : limiter.takeForVisitor(c.get("clientAddress")), next);
  };
}

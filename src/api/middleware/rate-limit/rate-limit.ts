import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import { RateLimitedError } from "../../../core/errors.ts";
import type { AppEnv } from "../../env.ts";
import { TokenBuckets } from "./token-bucket.ts";

/**
 * Rate limiting per API key (token bucket, `auth.rate_limit` requests per minute; 0 turns it off).
 * Requests without a usable key are limited per client address, which also slows key guessing; the public
 * endpoints (/healthz, /docs, the OpenAPI document) count in a bucket of their own per address, so a flood
 * of bad keys from behind the same proxy cannot starve a load balancer's health checks.
 * Every response carries RateLimit-Limit/-Remaining/-Reset (set before the route runs, like X-Request-Id); a
 * refused one is 429 with Retry-After.
 */
export function rateLimit(options: { requestsPerMinute: number; publicPaths: readonly string[] }): MiddlewareHandler<AppEnv> {
  const publicPaths = new Set(options.publicPaths);
  const buckets = options.requestsPerMinute > 0 ? new TokenBuckets(options.requestsPerMinute) : null;
  return function rateLimitMiddleware(c, next) {
    if (!buckets) return next();
    const decision = buckets.take(callerId(c, publicPaths));
    c.header("RateLimit-Limit", String(decision.limit));
    c.header("RateLimit-Remaining", String(decision.remaining));
    c.header("RateLimit-Reset", String(decision.resetSeconds));
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
    return next();
  };
}

function callerId(c: Parameters<MiddlewareHandler<AppEnv>>[0], publicPaths: ReadonlySet<string>): string {
  const principal = c.get("principal");
  if (principal) return `key:${principal.keyId}`;
  return `${publicPaths.has(c.req.path) ? "public" : "addr"}:${clientAddress(c)}`;
}

function clientAddress(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

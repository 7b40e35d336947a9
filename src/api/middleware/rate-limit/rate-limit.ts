import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import { RateLimitedError } from "../../../core/errors.ts";
import type { AppEnv } from "../../env.ts";
import { TokenBuckets, type BucketDecision } from "./token-bucket.ts";

/**
 * Rate limiting per API key (token bucket, `auth.rate_limit` requests per minute; 0 turns it off).
 * Requests without a usable key are limited per client address, which also slows key guessing; the public
 * endpoints (/healthz, /docs, the OpenAPI document) count in a bucket of their own per address, so a flood
 * of bad keys from behind the same proxy cannot starve a load balancer's health checks.
 * Every response carries RateLimit-Limit/-Remaining/-Reset (set before the route runs, like X-Request-Id); a
 * refused one is 429 with Retry-After.
 */
export class RateLimiter {
  private readonly buckets: TokenBuckets | null;
  private readonly publicPaths: ReadonlySet<string>;

  constructor(options: { requestsPerMinute: number; publicPaths: readonly string[] }) {
    this.buckets = options.requestsPerMinute > 0 ? new TokenBuckets(options.requestsPerMinute) : null;
    this.publicPaths = new Set(options.publicPaths);
  }

  /** Takes a token from the bucket of the key `keyId`; null when rate limiting is off. */
  takeForKey(keyId: string): BucketDecision | null {
    return this.buckets?.take(`key:${keyId}`) ?? null;
  }

  /** Takes a token for a request without a usable key, from its address's bucket. */
  takeForAddress(address: string, path: string): BucketDecision | null {
    return this.buckets?.take(`${this.publicPaths.has(path) ? "public" : "addr"}:${address}`) ?? null;
  }
}

/** The RateLimit-* headers of a decision. */
export function rateLimitHeaders(decision: BucketDecision): { "RateLimit-Limit": string; "RateLimit-Remaining": string; "RateLimit-Reset": string } {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
  };
}

export function rateLimit(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return function rateLimitMiddleware(c, next) {
    const principal = c.get("principal");
    const decision = principal ? limiter.takeForKey(principal.keyId) : limiter.takeForAddress(clientAddress(c), c.req.path);
    if (decision === null) return next();
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
    return next();
  };
}

function clientAddress(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

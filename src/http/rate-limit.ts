import type { Context, MiddlewareHandler, Next } from "hono";
import { RateLimitedError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";
import { addressBucketOf } from "./forwarded-chain.ts";
import { TokenBuckets, type BucketDecision } from "./token-bucket.ts";

/**
 * Token-bucket rate limits in separate buckets (per key, per address, public endpoints, dashboard session) so one
 * kind of caller cannot starve another (docs/decisions.md, "Sign-in has its own backoff").
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

  /** Takes a token for an API request without a usable key, from its address's bucket. */
  takeForAddress(address: string, path: string): BucketDecision | null {
    return this.buckets?.take(`${this.publicPaths.has(path) ? "public" : "addr"}:${addressBucketOf(address)}`) ?? null;
  }

  /** Takes a token for a signed-in dashboard request, from the bucket of the session's key. */
  takeForViewer(keyId: string): BucketDecision | null {
    return this.buckets?.take(`ui:${keyId}`) ?? null;
  }

  /** Takes a token for a signed-out dashboard request (sign-in page, assets), from its address's bucket. */
  takeForVisitor(address: string): BucketDecision | null {
    return this.buckets?.take(`ui-addr:${addressBucketOf(address)}`) ?? null;
  }
}

/** The RateLimit-* headers of a decision. */
function rateLimitHeaders(decision: BucketDecision): { "RateLimit-Limit": string; "RateLimit-Remaining": string; "RateLimit-Reset": string } {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
  };
}

/** Sets the decision's headers and goes on, or throws RateLimitedError for the app's (or dashboard's) error page. */
export function enforce(c: Context, decision: BucketDecision | null, next: Next): Promise<void> {
  if (decision === null) return next();
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
  if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
  return next();
}

/** Limits API requests; paths for which `ownLimit` is true are left to a limiter of their own (the dashboard's). */
export function rateLimit(limiter: RateLimiter, ownLimit: (path: string) => boolean = () => false): MiddlewareHandler<AppEnv> {
  return function rateLimitMiddleware(c, next) {
    if (ownLimit(c.req.path)) return next();
    const principal = c.get("principal");
    return enforce(c, principal ? limiter.takeForKey(principal.keyId) : limiter.takeForAddress(c.get("clientAddress"), c.req.path), next);
  };
}

import type { Context, MiddlewareHandler, Next } from "hono";
import { RateLimitedError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";
import { addressBucketOf } from "./forwarded-chain.ts";
import { TokenBuckets, type BucketDecision } from "./token-bucket.ts";

/**
 * Token-bucket rate limits in separate buckets (per key, per address, public endpoints, dashboard session) so one
 * kind of caller cannot starve another (docs/decisions.md, "Sign-in has its own backoff"). The buckets are this
 * process's own (the appliance), or shared by the nodes of a PostgreSQL store (http/shared-buckets.ts), whose takes
 * answer with a promise.
 */

/** A take's decision: at once from memory, or a promise from shared buckets; null when rate limiting is off. */
export type Decided = BucketDecision | Promise<BucketDecision> | null;

/** Buckets a limiter takes from: TokenBuckets (memory) or SharedTokenBuckets (the store). */
export interface Buckets {
  take(callerId: string): BucketDecision | Promise<BucketDecision>;
}

export class RateLimiter {
  private readonly buckets: Buckets | null;
  private readonly publicPaths: ReadonlySet<string>;

  /** `shared` makes the buckets of a given capacity a minute; absent, they are this process's own. */
  constructor(options: { requestsPerMinute: number; publicPaths: readonly string[]; shared?: (capacity: number) => Buckets }) {
    const capacity = options.requestsPerMinute;
    this.buckets = capacity <= 0 ? null : (options.shared?.(capacity) ?? new TokenBuckets(capacity));
    this.publicPaths = new Set(options.publicPaths);
  }

  /** Takes a token from the bucket of the key `keyId`; null when rate limiting is off. */
  takeForKey(keyId: string): Decided {
    return this.buckets?.take(`key:${keyId}`) ?? null;
  }

  /** Takes a token for an API request without a usable key, from its address's bucket. */
  takeForAddress(address: string, path: string): Decided {
    return this.buckets?.take(`${this.publicPaths.has(path) ? "public" : "addr"}:${addressBucketOf(address)}`) ?? null;
  }

  /** Takes a token for a signed-in dashboard request, from the bucket of the session's key. */
  takeForViewer(keyId: string): Decided {
    return this.buckets?.take(`ui:${keyId}`) ?? null;
  }

  /** Takes a token for a signed-out dashboard request (sign-in page, assets), from its address's bucket. */
  takeForVisitor(address: string): Decided {
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
export function enforce(c: Context, decision: Decided, next: Next): Promise<void> {
  if (decision === null) return next();
  // Memory's decision is used as it is: the appliance's request pays no await for it.
  if (decision instanceof Promise) return decision.then((decided) => apply(c, decided, next));
  return apply(c, decision, next);
}

function apply(c: Context, decision: BucketDecision, next: Next): Promise<void> {
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

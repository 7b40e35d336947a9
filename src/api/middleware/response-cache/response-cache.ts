import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Scope } from "../../../core/scopes.ts";
import type { AppEnv } from "../../env.ts";

/**
 * Answers to GET requests kept while the store stays unchanged. Every GET answer is computed from the store
 * (and, for a domain's `next_run_at`, the clock), so an answer kept under the store's version token
 * (store/store-version.ts) is exactly what computing it again would give, until the next commit anywhere
 * or `maxAgeMs`. Dashboards and scripts polling the same URLs then cost a lookup instead of queries and
 * JSON: during a crawl the store changes a few times a second, and the API answers thousands of requests
 * in between (bench/README.md, "API under load").
 *
 * The middleware runs per route after its scope check (api/secured-route.ts), so a kept answer only ever
 * reaches a key that may read it; each answer also keeps the route's scope and pattern, which is all the fast
 * path (api/kept-answers.ts) needs to serve it again before the router. Only 200 answers are kept, each up to
 * `maxBodyBytes`, `maxBytes` in all.
 */

export interface ResponseCacheOptions {
  /** The store's version token. */
  version: () => string;
  now?: () => number;
  maxAgeMs?: number;
  maxBodyBytes?: number;
  maxBytes?: number;
}

/** A kept answer and what serving it needs. */
export interface KeptAnswer {
  /**
   * The bytes, encoded once. A Blob because a Response made from one shares its bytes where one made from a
   * Uint8Array copies them: ~1.7 µs and 28 KiB of garbage less per hit on a 100-link page.
   */
  body: Blob;
  contentType: string;
  /** The scope the route requires. */
  scope: Scope;
  /** The route's pattern (the request-metrics label), e.g. /v1/crawls/:id. */
  route: string;
}

interface Entry {
  version: string;
  storedAt: number;
  answer: KeptAnswer;
}

const DEFAULTS = { maxAgeMs: 1_000, maxBodyBytes: 128 * 1024, maxBytes: 4 * 1024 * 1024 };

export class ResponseCache {
  readonly version: () => string;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly maxBodyBytes: number;
  private readonly maxBytes: number;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(options: ResponseCacheOptions) {
    this.version = options.version;
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
    this.maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  }

  /** The answer kept for `key` (a path and query) under `version`, if it is still fresh. */
  get(key: string, version: string): KeptAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === version && this.now() - entry.storedAt <= this.maxAgeMs) return entry.answer;
    this.forget(key, entry);
    return undefined;
  }

  /** Keeps an answer computed under `version`; the least recently stored ones go when over `maxBytes`. */
  set(key: string, version: string, answer: KeptAnswer): void {
    if (answer.body.size > this.maxBodyBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.forget(key, previous);
    this.entries.set(key, { version, storedAt: this.now(), answer });
    this.bytes += answer.body.size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest, entry);
    }
  }

  private forget(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.answer.body.size;
  }
}

/** Gives every request the app's response cache (routes read it through `cachedResponse`). */
export function provideResponseCache(cache: ResponseCache): MiddlewareHandler<AppEnv> {
  return function provideResponseCacheMiddleware(c, next) {
    c.set("responses", cache);
    return next();
  };
}

/** A 200 with a kept body (Hono's `Data` type leaves Blob out; its Response takes one). */
function answer(c: Context<AppEnv>, body: Blob, contentType: string): Response {
  return c.body(body as unknown as ArrayBuffer, 200, { "Content-Type": contentType });
}

/** The cache key of a request URL: its path and query, whatever the Host. */
export function cacheKeyOf(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

/** Answers a GET of a route requiring `scope` from the cache, or lets the route answer and keeps a 200. */
export function cachedResponse(scope: Scope): MiddlewareHandler<AppEnv> {
  return async function cachedResponseMiddleware(c, next) {
    const cache = c.get("responses");
    if (cache === undefined || c.req.method !== "GET") return next();
    const key = cacheKeyOf(c.req.url);
    const version = cache.version();
    const hit = cache.get(key, version);
    if (hit !== undefined) return answer(c, hit.body, hit.contentType);
    await next();
    const contentType = c.res.headers.get("content-type");
    if (c.res.status !== 200 || contentType === null) return;
    const body = await c.res.blob();
    cache.set(key, version, { body, contentType, scope, route: routePath(c, -1) });
    c.res = answer(c, body, contentType);
  };
}

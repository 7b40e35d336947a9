import type { Context, MiddlewareHandler } from "hono";
import { elapsedMs, monotonicNow } from "../../../core/clock.ts";
import { hasScope, type Scope } from "../../../core/scopes.ts";
import type { AppEnv } from "../../../http/env.ts";

/**
 * GET answers kept under the store's version token (store/store-version.ts), so a kept answer equals a fresh one
 * until the next commit or `maxAgeMs` (bench/README.md, "One cache for a GET"). It runs after auth and the rate
 * limit; a kept answer is given only to a key holding the scope the route checked (`keepAnswer(scope)`).
 */

interface ResponseCacheOptions {
  /** The store's version token. */
  version: () => string;
  /** Monotonic milliseconds (a wall-clock step must not keep an answer, or drop one). */
  now?: () => number;
  maxAgeMs?: number;
  maxBodyBytes?: number;
  maxBytes?: number;
}

/** A kept answer and the scope a key needs to be given it. */
interface KeptAnswer {
  /**
   * The bytes, encoded once. A Blob because a Response made from one shares its bytes where one made from a
   * Uint8Array copies them: less garbage and CPU per hit (bench/README.md, "Hot-path changes").
   */
  body: Blob;
  contentType: string;
  scope: Scope;
}

interface Entry {
  version: string;
  storedAt: number;
  answer: KeptAnswer;
}

const DEFAULTS = { maxAgeMs: 1_000, maxBodyBytes: 128 * 1024, maxBytes: 4 * 1024 * 1024 };

/** The kept answers, by path and query; see the module comment. */
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
    this.now = options.now ?? monotonicNow;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
    this.maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  }

  /** The answer kept for `key` (a path and query) under `version`, if it is still fresh. */
  get(key: string, version: string): KeptAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === version && elapsedMs(entry.storedAt, this.now()) <= this.maxAgeMs) return entry.answer;
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

/** A 200 with a kept body (Hono's `Data` type leaves Blob out; its Response takes one). */
function answer(c: Context<AppEnv>, body: Blob, contentType: string): Response {
  return c.body(body as unknown as ArrayBuffer, 200, { "Content-Type": contentType });
}

/** The cache key of a request URL: its path and query, whatever the Host. */
function cacheKeyOf(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

/** Answers a GET from `cache` when the caller may read the kept answer; else lets it through and keeps a 200. */
export function responseCache(cache: ResponseCache): MiddlewareHandler<AppEnv> {
  return async function responseCacheMiddleware(c, next) {
    if (c.req.method !== "GET") return next();
    const key = cacheKeyOf(c.req.url);
    let version: string;
    try {
      // Read before the route runs: a commit meanwhile then files its answer under a version already gone.
      version = cache.version();
    } catch {
      // A store that fails (closed at a shutdown timeout, an I/O error) is the route's to report (/healthz's 503).
      return next();
    }
    const kept = cache.get(key, version);
    const principal = c.get("principal");
    if (kept !== undefined && principal !== null && hasScope(principal.scopes, kept.scope)) return answer(c, kept.body, kept.contentType);
    await next();
    const scope = c.get("keepAnswerFor");
    const contentType = c.res.headers.get("content-type");
    if (scope === undefined || c.res.status !== 200 || contentType === null) return;
    const body = await c.res.blob();
    cache.set(key, version, { body, contentType, scope });
    c.res = answer(c, body, contentType);
  };
}

/** Lets `responseCache` keep the route's 200 answers, for keys holding `scope` (the route's own scope check). */
export function keepAnswer(scope: Scope): MiddlewareHandler<AppEnv> {
  return function keepAnswerMiddleware(c, next) {
    c.set("keepAnswerFor", scope);
    return next();
  };
}

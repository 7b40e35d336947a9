import type { Context, MiddlewareHandler } from "hono";
import { elapsedMs, monotonicNow } from "../../../core/clock.ts";
import { hasScope, type Scope } from "../../../core/scopes.ts";
import type { AppEnv } from "../../../http/env.ts";

/**
 * GET answers kept under the store's version token (store/store-version.ts, store/postgres/snapshot-version.ts),
 * read as the request began (store-version-token.ts), so a kept answer equals a fresh one until the next commit or
 * `maxAgeMs` (bench/README.md, "One cache for a GET"). It runs after auth and the rate limit; a kept answer is
 * given only to a key holding the scope the route checked (`keepAnswer(scope)`).
 */

interface ResponseCacheOptions {
  /** Monotonic milliseconds (a wall-clock step must not keep an answer, or drop one). */
  now?: () => number;
  maxAgeMs?: number;
  maxBodyBytes?: number;
  maxBytes?: number;
  /** Answers bigger than this are also kept gzipped, for clients that accept it; default 1 KiB. */
  gzipAboveBytes?: number;
}

/** A kept answer and the scope a key needs to be given it. */
interface KeptAnswer {
  /**
   * The bytes, encoded once. A Blob because a Response made from one shares its bytes where one made from a
   * Uint8Array copies them: less garbage and CPU per hit (bench/README.md, "Hot-path changes").
   */
  body: Blob;
  /**
   * The same bytes gzipped (level 1) for a client that accepts it; null for a small answer. Beside saving the
   * bytes, it keeps a big answer within Bun 1.3.14's 16 KiB cork buffer: one completed after an await (every
   * answer on PostgreSQL) and bigger than that leaves with one send() per header piece, 19 for ours
   * (docs/decisions.md, "Big answers gzipped").
   */
  gzip: Blob | null;
  contentType: string;
  scope: Scope;
}

interface Entry {
  version: string;
  storedAt: number;
  answer: KeptAnswer;
}

const DEFAULTS = { maxAgeMs: 1_000, maxBodyBytes: 128 * 1024, maxBytes: 4 * 1024 * 1024, gzipAboveBytes: 1024 };

function sizeOf(answer: KeptAnswer): number {
  return answer.body.size + (answer.gzip?.size ?? 0);
}

/** The kept answers, by path and query; see the module comment. */
export class ResponseCache {
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly maxBodyBytes: number;
  private readonly maxBytes: number;
  private readonly gzipAboveBytes: number;
  private readonly entries = new Map<string, Entry>();
  /** Answers being computed, one per key (the newest version's): see `computing`. */
  private readonly inFlight = new Map<string, { version: string; answer: Promise<KeptAnswer | undefined> }>();
  private bytes = 0;

  constructor(options: ResponseCacheOptions = {}) {
    this.now = options.now ?? monotonicNow;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
    this.maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
    this.gzipAboveBytes = options.gzipAboveBytes ?? DEFAULTS.gzipAboveBytes;
  }

  /** A route's 200 answer as it is kept and written: its bytes, read once, and gzipped once when big. */
  async answerOf(res: Response, contentType: string, scope: Scope): Promise<KeptAnswer> {
    const body = await res.blob();
    const gzip = body.size > this.gzipAboveBytes ? new Blob([Bun.gzipSync(await body.bytes(), { level: 1 })]) : null;
    return { body, gzip, contentType, scope };
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
    this.bytes += sizeOf(answer);
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest, entry);
    }
  }

  /**
   * The answer an earlier request is computing for `key` under `version`, if one is: requests that miss at once
   * share it rather than each running the route, so a commit is followed by one computation per path, not one per
   * waiting client (on PostgreSQL, 200 of them each holding a pooled connection; bench/README.md). Resolves to
   * undefined when that request's answer is not one to keep (an error, a route that keeps nothing).
   */
  computing(key: string, version: string): Promise<KeptAnswer | undefined> | undefined {
    const flight = this.inFlight.get(key);
    return flight !== undefined && flight.version === version ? flight.answer : undefined;
  }

  /** Notes that this request computes `key` under `version`; call what it returns with the answer, or undefined. */
  compute(key: string, version: string): (answer: KeptAnswer | undefined) => void {
    let settle!: (answer: KeptAnswer | undefined) => void;
    const flight = { version, answer: new Promise<KeptAnswer | undefined>((resolve) => (settle = resolve)) };
    this.inFlight.set(key, flight);
    return (answer) => {
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
      settle(answer);
    };
  }

  private forget(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= sizeOf(entry.answer);
  }
}

/** Whether an Accept-Encoding header accepts gzip (by name or `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    if (name !== "gzip" && name !== "x-gzip" && name !== "*") continue;
    const q = params.find((param) => param.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** A 200 with a kept body, gzipped when it has that form and the client accepts it (Hono's `Data` type leaves Blob out; its Response takes one). */
function answer(c: Context<AppEnv>, { body, gzip, contentType }: Pick<KeptAnswer, "body" | "gzip" | "contentType">): Response {
  if (gzip === null) return c.body(body as unknown as ArrayBuffer, 200, { "Content-Type": contentType });
  const headers = { "Content-Type": contentType, Vary: "Accept-Encoding" };
  if (acceptsGzip(c.req.header("Accept-Encoding"))) return c.body(gzip as unknown as ArrayBuffer, 200, { ...headers, "Content-Encoding": "gzip" });
  return c.body(body as unknown as ArrayBuffer, 200, headers);
}

/** The cache key of a request URL: its path and query, whatever the Host. */
function cacheKeyOf(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

/**
 * Answers a GET from `cache` when the caller may read the kept answer; else lets it through and keeps a 200. A
 * node that keeps nothing (no version token: PostgreSQL with rate limits on) still sends big answers gzipped.
 */
export function responseCache(cache: ResponseCache): MiddlewareHandler<AppEnv> {
  return async function responseCacheMiddleware(c, next) {
    if (c.req.method !== "GET") return next();
    // Null: the store failed as the token was read (closed at a shutdown timeout, an I/O error), the route's to report.
    const version = c.get("storeVersion");
    // Kept answers come from routes that require a key (secured-route.ts): a request without one has none to use.
    const principal = c.get("principal");
    if (version === null || version === undefined || principal === null) return passWithoutKeeping(c, next, cache);
    const key = cacheKeyOf(c.req.url);
    const kept = cache.get(key, version);
    if (kept !== undefined && hasScope(principal.scopes, kept.scope)) return answer(c, kept);
    let settle: ((answer: KeptAnswer | undefined) => void) | undefined;
    // Asked by `keepAnswer` once the route's scope check passed: join a run of the route under way, or lead one.
    // Only routes that keep their answers share them: a run of any other route is never waited for.
    c.set("shareAnswer", () => {
      const running = cache.computing(key, version);
      if (running === undefined) settle = cache.compute(key, version);
      return running;
    });
    let computed: KeptAnswer | undefined;
    try {
      await next();
      computed = await keptForm(c, cache);
      if (computed === undefined) return;
      cache.set(key, version, computed);
      c.res = answer(c, computed);
    } finally {
      settle?.(computed);
    }
  };
}

/** The route's answer as it is kept and sent, when it is one to keep: a 200 of a route that keeps its answers. */
async function keptForm(c: Context<AppEnv>, cache: ResponseCache): Promise<KeptAnswer | undefined> {
  const scope = c.get("keepAnswerFor");
  const contentType = c.res.headers.get("content-type");
  if (scope === undefined || c.res.status !== 200 || contentType === null) return undefined;
  return cache.answerOf(c.res, contentType, scope);
}

/** Runs the route without keeping its answer (no version to keep it under), sent as a kept one would be. */
async function passWithoutKeeping(c: Context<AppEnv>, next: () => Promise<void>, cache: ResponseCache): Promise<void> {
  await next();
  const kept = await keptForm(c, cache);
  if (kept !== undefined) c.res = answer(c, kept);
}

/**
 * Lets `responseCache` keep the route's 200 answers, for keys holding `scope` (the route's own scope check), and
 * gives a request the answer another request's run of the route is computing under the same version, if one is.
 */
export function keepAnswer(scope: Scope): MiddlewareHandler<AppEnv> {
  return async function keepAnswerMiddleware(c, next) {
    const running = c.get("shareAnswer")?.();
    const shared = running === undefined ? undefined : await running;
    if (shared !== undefined) return answer(c, shared);
    c.set("keepAnswerFor", scope);
    await next();
  };
}

import { mkdtempSync } from "node:fs";
import { removeAfterRun } from "./after-run.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema, type Config } from "../../src/config/schema.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import { createLogger, type Logger } from "../../src/core/logger.ts";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import { serveApi } from "../../src/api/serve-api.ts";
import { tableResolver } from "./table-resolver.ts";
import { freshDatabase } from "./postgres.ts";

/**
 * A real linkpatrol API on 127.0.0.1 with a fresh SQLite file in a temp dir (or a fresh PostgreSQL database), for tests that talk to it
 * over a socket. Config is the built-in defaults deep-merged with `overrides`; by default crawler
 * requests may reach loopback (the test sites live there), names resolve from a fixed table (localhost only)
 * rather than the host's DNS, and the rate limit is out of the way.
 */

export interface TestService {
  runtime: Runtime;
  config: Config;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** origin + base path, e.g. http://127.0.0.1:41234/v1 */
  base: string;
  /** An admin key. */
  adminKey: string;
  /** Creates a key with the given scopes and returns its secret. */
  keyWith(...scopes: string[]): Promise<string>;
  /** Sends a request to base + path with the admin key (unless `key` is given, or null for none). */
  call(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON tests). */
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
  /** The path is from the server root (/healthz, /docs) rather than from the API base path. */
  root?: boolean;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  json: any;
  text: string;
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

/** Starts a service; always `await stop()` in afterAll/afterEach. */
export async function startTestService(
  overrides: DeepPartial<Record<keyof Config, Record<string, unknown>>> = {},
  options: { resolve?: Resolve; logger?: Logger; startCrawls?: boolean; store?: "sqlite" | "postgres" } = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-test-"));
  // LINKPATROL_TEST_STORE=postgres runs every service test on a fresh PostgreSQL database (helpers/postgres.ts).
  const engine = options.store ?? (process.env.LINKPATROL_TEST_STORE === "postgres" ? "postgres" : "sqlite");
  const database = engine === "postgres" ? await freshDatabase() : null;
  const raw: Record<string, Record<string, unknown>> = {
    server: { host: "127.0.0.1", port: 0 },
    storage: { path: join(dir, "test.db"), url: database?.url ?? null },
    auth: { rate_limit: 100_000 },
    crawler: { allow_private_networks: true, connect_timeout: "2s", header_timeout: "2s", body_timeout: "2s" },
    verification: { timeout: "2s" },
    // Crawl worker threads log on their own, at this level.
    logging: { level: process.env.TEST_LOG ? "debug" : "error" },
  };
  for (const [section, values] of Object.entries(overrides)) raw[section] = { ...raw[section], ...values };
  const config = configSchema.parse(raw);
  const logger = options.logger ?? (process.env.TEST_LOG ? createLogger("debug") : undefined);
  // Offline by default: made-up names fail at once instead of waiting on the host's resolver.
  const resolve = options.resolve ?? tableResolver({ localhost: ["127.0.0.1", "::1"] });
  // A resolver function cannot reach a worker thread: tests that bring their own crawl in this thread.
  const runtime = await openRuntime(config, { resolve, logger, inlineCrawls: options.resolve !== undefined, createStore: true });
  if (options.startCrawls !== false) runtime.crawlPool.start();
  runtime.dispatcher.start();
  const adminKey = (await runtime.keys.create("test-admin", ["admin"])).secret;
  // The listener `linkpatrol serve` uses, with its limits.
  const server = serveApi(await runtime.app(), { hostname: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${server.port}`;
  const base = `${origin}${config.server.base_path}`;

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? adminKey : opts.key;
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const url = `${opts.root ? origin : base}${path}`;
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: res.status, headers: res.headers, json, text };
  };

  return {
    runtime,
    config,
    origin,
    base,
    adminKey,
    keyWith: async (...scopes) => (await runtime.keys.create(`test-${scopes.join("+")}`, scopes)).secret,
    call,
    stop: async () => {
      await server.stop(true);
      runtime.scheduler.stop();
      await runtime.retention.stop();
      await runtime.crawlPool.stop();
      await runtime.dispatcher.stop();
      await runtime.close();
      await database?.drop();
      removeAfterRun(dir);
    },
  };
}

/** Asserts the contract's error envelope and returns its `error` object. */
export function expectErrorEnvelope(res: ApiResponse, status: number, code: string) {
  if (res.status !== status || res.json?.error?.code !== code || typeof res.json?.error?.message !== "string") {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  if (/\bat .+:\d+:\d+|SELECT |INSERT |sqlite/i.test(res.text)) throw new Error(`error body leaks internals: ${res.text}`);
  return res.json.error as { code: string; message: string; details?: Record<string, unknown>[] };
}

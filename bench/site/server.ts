/**
 * Serves the synthetic site (bench/site/generate.ts) on two loopback ports — `main`, the crawled domain, and
 * `external`, "another host" — with Bun.serve: keep-alive (Bun's default), no compression (Bun never
 * compresses on its own and we set no Content-Encoding). Pages are generated per request from the seed;
 * a small LRU cache holds the last few. Every request is counted so a benchmark can report what the crawler
 * asked for.
 *
 * Also a load generator to measure the server's own capacity (so a crawl benchmark can show the site is not
 * its bottleneck). It runs in a child process — `bun bench/site/server.ts load …` — so client and server do
 * not share one event loop, as in a real crawl.
 *
 *   bun bench/site/server.ts serve [--pages N] [--seed S] [--slow-ms MS]      # serve until Ctrl-C
 *   bun bench/site/server.ts capacity [--pages N] [--concurrency 64] [--seconds 3]
 */
import type { Server } from "bun";
import { parseArgs } from "node:util";
import { DEFAULT_PAGES, Prng, type SiteOptions, SyntheticSite } from "./generate.ts";

/** Request counts, per origin. */
export interface SiteStats {
  requests: { main: number; external: number };
  /** Requests per "METHOD URL". */
  byRequest: Map<string, number>;
  /** Bytes of bodies sent. */
  bodyBytes: number;
}

export interface RunningSite {
  site: SyntheticSite;
  rootUrl: string;
  /** "127.0.0.1:PORT" of the main origin: the domain name to register. */
  host: string;
  stats: SiteStats;
  /** Forgets the counts so far. */
  resetStats(): void;
  /** Stops both servers; held slow answers are released at once. */
  stop(): Promise<void>;
}

export interface ServeOptions extends SiteOptions {
  /** Pages kept in the HTML cache; default 64. */
  cachePages?: number;
  /** Count requests per "METHOD URL" (costs a Map entry per distinct request); default true. */
  countRequests?: boolean;
}

/** A tiny LRU over Map insertion order. */
class Lru<V> {
  private readonly map = new Map<number, V>();
  constructor(private readonly capacity: number) {}
  get(key: number, make: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const value = make();
    if (this.capacity > 0) {
      this.map.set(key, value);
      if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
    }
    return value;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Starts the site on two random loopback ports. */
export async function startSiteServer(options: ServeOptions = {}): Promise<RunningSite> {
  const stopping = new AbortController();
  const cache = new Lru<string>(options.cachePages ?? 64);
  const countRequests = options.countRequests ?? true;
  const stats: SiteStats = { requests: { main: 0, external: 0 }, byRequest: new Map(), bodyBytes: 0 };
  let site: SyntheticSite | null = null;
  const slowDelayMs = options.slowDelayMs;
  // Idle keep-alive connections live this long (Bun allows at most 255 s); above the slow delay.
  const idleTimeout = Math.min(255, Math.ceil((slowDelayMs ?? 2_000) / 1000) + 30);

  const handler = (origin: "main" | "external") => async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname + url.search;
    stats.requests[origin]++;
    if (countRequests) {
      const key = `${request.method} ${origin === "main" ? "" : "ext:"}${path}`;
      stats.byRequest.set(key, (stats.byRequest.get(key) ?? 0) + 1);
    }
    if (site === null) return new Response("starting", { status: 503 });
    const answer = site.route(origin, path);
    if (answer.slow) await sleep(site.slowDelayMs, stopping.signal);
    if (request.method === "HEAD") return new Response(null, { status: answer.status, headers: answer.headers });
    const body = answer.page !== undefined ? cache.get(answer.page, answer.body) : answer.body();
    stats.bodyBytes += body.length;
    return new Response(body, { status: answer.status, headers: answer.headers });
  };

  const listen = (origin: "main" | "external"): Server<undefined> =>
    Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout, fetch: handler(origin) });
  const main = listen("main");
  const external = listen("external");
  site = new SyntheticSite({ main: `http://127.0.0.1:${main.port}`, external: `http://127.0.0.1:${external.port}` }, options);
  return {
    site,
    rootUrl: site.rootUrl,
    host: `127.0.0.1:${main.port}`,
    stats,
    resetStats() {
      stats.requests.main = 0;
      stats.requests.external = 0;
      stats.byRequest.clear();
      stats.bodyBytes = 0;
    },
    async stop() {
      stopping.abort();
      await Promise.all([main.stop(true), external.stop(true)]);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Capacity: concurrent fetch loops against random (non-slow) pages.

export interface LoadOptions {
  /** The main origin, "http://127.0.0.1:PORT". */
  origin: string;
  /** The site's page count and seed (to build page URLs and skip the slow pages). */
  pages: number;
  seed?: number;
  /** Fetch loops; default 64. */
  concurrency?: number;
  /** How long to load, in ms; default 3,000. */
  durationMs?: number;
  /** Hard cap on requests; default 2,000,000. */
  maxRequests?: number;
}

export interface LoadResult {
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  req_per_s: number;
  mib_per_s: number;
  p50_ms: number;
  p99_ms: number;
}

/** Runs the load in this process. Prefer `measureCapacity`, which runs it in a child process. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const concurrency = options.concurrency ?? 64;
  const durationMs = options.durationMs ?? 3_000;
  const maxRequests = options.maxRequests ?? 2_000_000;
  // Only page paths are needed; the origins are not used to build them.
  const site = new SyntheticSite({ main: options.origin, external: options.origin }, { pages: options.pages, seed: options.seed });
  const rng = new Prng(12345);
  let requests = 0;
  let errors = 0;
  let bytes = 0;
  const latencies: number[] = [];
  const began = performance.now();
  const deadline = began + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && requests < maxRequests) {
        let page = rng.int(0, site.pages - 1);
        if (site.isSlowPage(page)) page = 0;
        requests++;
        const t = performance.now();
        try {
          const res = await fetch(`${options.origin}${site.pagePath(page)}`);
          bytes += (await res.arrayBuffer()).byteLength;
          if (res.status !== 200) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return {
    concurrency,
    seconds: round(seconds, 2),
    requests,
    errors,
    req_per_s: Math.round(requests / seconds),
    mib_per_s: round(bytes / 1024 / 1024 / seconds, 1),
    p50_ms: round(at(0.5), 2),
    p99_ms: round(at(0.99), 2),
  };
}

/** Measures a running site's capacity from a child process (this file's `load` command). */
export async function measureCapacity(site: RunningSite, options: Omit<LoadOptions, "origin" | "pages" | "seed"> = {}): Promise<LoadResult> {
  const proc = Bun.spawn({
    cmd: [
      process.execPath,
      import.meta.path,
      "load",
      "--origin",
      site.site.origins.main,
      "--pages",
      String(site.site.pages),
      "--seed",
      String(site.site.seed),
      "--concurrency",
      String(options.concurrency ?? 64),
      "--ms",
      String(options.durationMs ?? 3_000),
    ],
    stdout: "pipe",
    stderr: "inherit",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), (options.durationMs ?? 3_000) + 30_000);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(killer);
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  return JSON.parse(out) as LoadResult;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

// ---------------------------------------------------------------------------------------------------------

async function cli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      pages: { type: "string" },
      seed: { type: "string" },
      "slow-ms": { type: "string" },
      origin: { type: "string" },
      concurrency: { type: "string" },
      seconds: { type: "string" },
      ms: { type: "string" },
    },
  });
  const pages = Number(values.pages ?? DEFAULT_PAGES);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  const concurrency = Number(values.concurrency ?? 64);
  const durationMs = values.ms !== undefined ? Number(values.ms) : Number(values.seconds ?? 3) * 1000;
  switch (positionals[0]) {
    case "load": {
      if (values.origin === undefined) throw new Error("load needs --origin");
      console.log(JSON.stringify(await runLoad({ origin: values.origin, pages, seed, concurrency, durationMs })));
      return 0;
    }
    case "capacity": {
      const site = await startSiteServer({ pages, seed, countRequests: false });
      try {
        const result = await measureCapacity(site, { concurrency, durationMs });
        console.log(`site server capacity (${pages} pages, ${concurrency} concurrent, random pages, client in a child process):`);
        console.log(`  ${result.req_per_s} req/s, ${result.mib_per_s} MiB/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ${result.errors} errors`);
      } finally {
        await site.stop();
      }
      return 0;
    }
    case "serve": {
      const site = await startSiteServer({ pages, seed, slowDelayMs: values["slow-ms"] === undefined ? undefined : Number(values["slow-ms"]) });
      console.log(`main: ${site.site.origins.main}/  external: ${site.site.origins.external}/  (Ctrl-C stops)`);
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
      await site.stop();
      return 0;
    }
    default:
      console.error("usage: bun bench/site/server.ts serve|capacity|load [--pages N] [--seed S] [--slow-ms MS] [--concurrency C] [--seconds S]");
      return 2;
  }
}

if (import.meta.main) process.exit(await cli(process.argv.slice(2)));

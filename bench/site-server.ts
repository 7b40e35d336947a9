/**
 * The benchmark's site from the command line, and the capacity of its server. The site itself is the
 * synthetic site of the test fixtures (test/fixtures/site-synthetic.ts, served by site-generator.ts: keep-alive,
 * no compression, pages built per request from the seed), so the benchmark and the tests share one generator
 * and one ground truth.
 *
 * The load generator measures the server's own capacity (so a crawl benchmark can show the site is not its
 * bottleneck). It runs in a child process — `bun bench/site-server.ts load …` — so client and server do not
 * share one event loop, as in a real crawl.
 *
 *   bun bench/site-server.ts serve [--pages N] [--seed S] [--slow-ms MS] [--site realistic|classic]   # serve until Ctrl-C
 *   bun bench/site-server.ts capacity [--pages N] [--concurrency 64] [--seconds 3] [--site realistic|classic]
 */
import { parseArgs } from "node:util";
import { type RunningSite, startSyntheticSite, SYNTHETIC_PROFILES, type SyntheticProfile, SyntheticSite } from "../test/fixtures/site-generator.ts";
import { Prng } from "../test/fixtures/site-prng.ts";
import { DEFAULT_PAGES } from "../test/fixtures/site-synthetic.ts";

export interface LoadOptions {
  /** The internal origin, "http://127.0.0.1:PORT". */
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

/** Concurrent fetch loops against random (non-slow) pages, in this process. Prefer `measureCapacity`. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const concurrency = options.concurrency ?? 64;
  const durationMs = options.durationMs ?? 3_000;
  const maxRequests = options.maxRequests ?? 2_000_000;
  // Only page paths are needed; the origins are not used to build them.
  const origins = { internal: options.origin, external: options.origin, refused: options.origin };
  const site = new SyntheticSite(origins, { pages: options.pages, seed: options.seed });
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
export async function measureCapacity(site: RunningSite<SyntheticSite>, options: Omit<LoadOptions, "origin" | "pages" | "seed"> = {}): Promise<LoadResult> {
  const proc = Bun.spawn({
    cmd: [
      process.execPath,
      import.meta.path,
      "load",
      "--origin",
      site.internal.origin,
      "--pages",
      String(site.definition.pages),
      "--seed",
      String(site.definition.seed),
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
      site: { type: "string", default: "realistic" },
    },
  });
  if (!(SYNTHETIC_PROFILES as readonly string[]).includes(values.site)) throw new Error(`--site must be one of ${SYNTHETIC_PROFILES.join(", ")}`);
  const profile = values.site as SyntheticProfile;
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
      const site = await startSyntheticSite({ pages, seed, profile });
      try {
        const result = await measureCapacity(site, { concurrency, durationMs });
        console.log(`site server capacity (${profile} site, ${pages} pages, ${concurrency} concurrent, random pages, client in a child process):`);
        console.log(`  ${result.req_per_s} req/s, ${result.mib_per_s} MiB/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ${result.errors} errors`);
      } finally {
        await site.stop();
      }
      return 0;
    }
    case "serve": {
      const site = await startSyntheticSite({ pages, seed, profile, slowDelayMs: values["slow-ms"] === undefined ? undefined : Number(values["slow-ms"]) });
      console.log(`internal: ${site.internal.origin}/  external: ${site.external.origin}/  (Ctrl-C stops)`);
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
      await site.stop();
      return 0;
    }
    default:
      console.error(
        "usage: bun bench/site-server.ts serve|capacity|load [--pages N] [--seed S] [--slow-ms MS] [--concurrency C] [--seconds S] [--site realistic|classic]",
      );
      return 2;
  }
}

if (import.meta.main) process.exit(await cli(process.argv.slice(2)));

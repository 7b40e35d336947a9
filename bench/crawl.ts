/**
 * The crawl benchmark: one synthetic site (test/fixtures/site-synthetic.ts, the generator the crawler tests
 * use; `--site realistic`, the default, is its profile written like real documentation sites,
 * test/fixtures/site-realistic.ts), served in this process, crawled in turn by
 *   1. the service via the API (bench/runs/service.ts),
 *   2. `linkpatrol check URL --format json` (bench/runs/check.ts),
 *   3. linkinator 7.6.1 from bench/node_modules (bench/runs/linkinator.ts; --no-linkinator skips it),
 *   4. wget2 --spider -r when wget2 is on PATH (bench/runs/wget2.ts; --no-wget2 skips it),
 * each measured (wall, pages/s, CPU, peak RSS, site requests) and checked against the site's ground truth
 * (recall and false positives of broken URLs; every count for the linkpatrol runs). With --api-load, a second
 * crawl by the service runs under HTTP load on the API (bench/api-load.ts; wrk, else autocannon). Above 10,000
 * pages, the time growth of the service and of check is measured in this run (bench/growth.ts): --growth-rounds
 * rounds (3) of a 10,000-page site then the N-page one. Prints one table, the ratios and targets of issue 5
 * (bench/report.ts), and writes bench/out/crawl-<site>-<N>-<options>-<timestamp>.json (not in git: the numbers
 * worth keeping go into bench/README.md's results table).
 *
 *   bun bench/crawl.ts [--pages N] [--site realistic|classic] [--options kinds|default|all] [--binary | --binary-path FILE] [--seed S]
 *                      [--slow-ms MS] [--timeout SECONDS] [--concurrency C] [--no-capacity] [--keep]
 *                      [--no-check] [--no-linkinator] [--linkinator-timeout S] [--linkinator-concurrency C]
 *                      [--no-wget2] [--api-load] [--api-load-seconds S] [--api-load-connections C] [--api-mix-seconds S]
 *                      [--api-mix-threads T] [--api-mix-warm] [--api-mix-rate R] [--no-api-endpoints] [--accept-encoding E]
 *                      [--load-generator wrk|autocannon] [--growth-rounds R] [--store sqlite|postgres] [--analyze] [--strict]
 *                      [--rate-limit N]
 *
 * --store postgres runs the service on a fresh PostgreSQL database (bench/lib/postgres.ts; created for the run,
 * dropped after unless --keep) instead of its SQLite file: the same crawls and API mix, to compare the two stores. --analyze (with
 * postgres) runs ANALYZE after the first crawl, before the API load: the statistics autovacuum gathers about a
 * minute after tables fill, on a server that has it on (bench/README.md, issue 43's fifth session).
 * --api-mix-rate R: the mix offers about R requests/s in all (each connection waits connections ÷ R between its
 * requests; wrk's delay hook) instead of as many as the service answers: latency at the same load on both stores,
 * rather than at each one's saturation, where p99 mostly measures the queue. The result says the rate reached.
 * --rate-limit N: the service's `auth.rate_limit` (default 0, off). A limit too high to refuse anything still counts
 * every request: on PostgreSQL one shared take a request, and no kept answers (docs/cluster.md).
 *
 * Exit: 0 the linkpatrol runs completed and match the ground truth; 3 completed but something differs;
 * 1 a linkpatrol run failed, timed out or the service died; 2 usage or set-up error; 4 (--strict only) all
 * correct but a target of issue 5 failed. Loopback only; every run is bounded by a timeout.
 */
import { mkdirSync, mkdtempSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type ApiLoadResult, runApiLoad } from "./api-load.ts";
import { loadGenerator } from "./lib/load-generators.ts";
import { type BenchDatabase, freshBenchDatabase } from "./lib/postgres.ts";
import { firstLine, round, tail } from "./lib/proc.ts";
import { isCorrect, type ToolRun } from "./lib/tool-run.ts";
import { GROWTH_BASE_PAGES, type GrowthResult, measureGrowth } from "./growth.ts";
import { apiLoadTable, growthTable, runsTable, targets, targetsTable } from "./report.ts";
import { runCheck } from "./runs/check.ts";
import { linkinatorVersion, runLinkinator } from "./runs/linkinator.ts";
import { KEY, type Service, serviceCrawl, startService } from "./runs/service.ts";
import { runWget2, wget2Version } from "./runs/wget2.ts";
import { type LoadResult, measureCapacity } from "./site-server.ts";
import { type RunningSite, startSyntheticSite, SYNTHETIC_PROFILES, type SyntheticProfile, type SyntheticSite } from "../test/fixtures/site-generator.ts";
import type { CrawlFlags, Totals } from "../test/fixtures/site-model.ts";

const ROOT = join(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "linkpatrol");
const USAGE =
  "usage: bun bench/crawl.ts [--pages N] [--site realistic|classic] [--options kinds|default|all] [--binary | --binary-path FILE] [--seed S] [--slow-ms MS]\n" +
  "                          [--timeout S] [--concurrency C]\n" +
  "                          [--no-capacity] [--keep] [--no-check] [--no-linkinator] [--linkinator-timeout S] [--linkinator-concurrency C] [--no-wget2]\n" +
  "                          [--api-load] [--api-load-seconds S] [--api-load-connections C] [--api-mix-seconds S] [--api-mix-threads T] [--api-mix-warm] [--api-mix-rate R] [--no-api-endpoints] [--accept-encoding E]\n" +
  "                          [--load-generator wrk|autocannon] [--growth-rounds R] [--store sqlite|postgres] [--analyze] [--strict]\n" +
  "                          [--rate-limit N]";

/** The option sets the benchmark knows by name. */
const OPTION_SETS = {
  /** The spec's defaults: anchors only, internal only. */
  default: { scan_images: false, scan_scripts: false, scan_stylesheets: false, follow_external: false },
  /** Every internal link kind: what wget2 --spider -r fetches too (the realistic site's default). */
  kinds: { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: false },
  /** Every scan option and follow_external. */
  all: { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true },
} as const satisfies Record<string, CrawlFlags>;

type OptionSetName = keyof typeof OPTION_SETS;

class UsageError extends Error {}

interface Args {
  pages: number;
  /** Which profile of the synthetic site is served. */
  site: SyntheticProfile;
  options: OptionSetName;
  /** The executable to run, or null for the source (this Bun on src/main.ts). */
  binary: string | null;
  seed: number;
  slowMs: number;
  timeoutS: number;
  concurrency: number;
  capacity: boolean;
  keep: boolean;
  check: boolean;
  linkinator: boolean;
  linkinatorTimeoutS: number;
  linkinatorConcurrency: number;
  wget2: boolean;
  apiLoad: boolean;
  apiLoadSeconds: number;
  apiLoadConnections: number;
  /** The rotating mix under the crawl (0: none), and its load generator's threads. */
  apiMixSeconds: number;
  apiMixThreads: number;
  /** --accept-encoding: what the API load's requests accept (most clients: gzip); null: nothing, as wrk sends. */
  acceptEncoding: string | null;
  /** One request per mix path alone before the mix. */
  apiMixWarm: boolean;
  /** --api-mix-rate: the mix's offered requests/s in all; null: as many as answered. */
  apiMixRate: number | null;
  /** Whether each endpoint is also loaded alone after the mix. */
  apiEndpoints: boolean;
  /** Which load generator the API-load run uses; undefined: wrk when installed, else autocannon. */
  loadGenerator: "wrk" | "autocannon" | undefined;
  /** Paired rounds measuring time growth from 10,000 pages (0: none; only above 10,000 pages). */
  growthRounds: number;
  /** The service's store: its SQLite file, or a fresh PostgreSQL database. */
  store: "sqlite" | "postgres";
  /** PostgreSQL only: ANALYZE after the first crawl, before the API load. */
  analyze: boolean;
  rateLimit: number;
  strict: boolean;
}

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
  return n;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function parse(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: "string", default: "10000" },
      site: { type: "string", default: "realistic" },
      options: { type: "string" },
      binary: { type: "boolean", default: false },
      "binary-path": { type: "string" },
      seed: { type: "string", default: "1" },
      "slow-ms": { type: "string", default: "2000" },
      timeout: { type: "string" },
      concurrency: { type: "string", default: "32" },
      "no-capacity": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "no-check": { type: "boolean", default: false },
      "no-linkinator": { type: "boolean", default: false },
      "linkinator-timeout": { type: "string", default: "600" },
      "linkinator-concurrency": { type: "string", default: "100" },
      "no-wget2": { type: "boolean", default: false },
      "api-load": { type: "boolean", default: false },
      "api-load-seconds": { type: "string", default: "10" },
      "api-load-connections": { type: "string", default: "200" },
      "api-mix-seconds": { type: "string", default: "15" },
      "api-mix-threads": { type: "string", default: "2" },
      "accept-encoding": { type: "string" },
      "api-mix-warm": { type: "boolean", default: false },
      "api-mix-rate": { type: "string" },
      "no-api-endpoints": { type: "boolean", default: false },
      "load-generator": { type: "string" },
      "growth-rounds": { type: "string", default: "3" },
      store: { type: "string", default: "sqlite" },
      analyze: { type: "boolean", default: false },
      "rate-limit": { type: "string", default: "0" },
      strict: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) throw new UsageError("");
  const pages = Number(values.pages);
  if (!Number.isInteger(pages) || pages < 100) throw new UsageError("--pages must be an integer >= 100");
  const site = oneOf("site", values.site, SYNTHETIC_PROFILES)!;
  // The realistic site checks every internal kind by default, as the sites nobody here wrote are measured.
  const options = values.options ?? (site === "realistic" ? "kinds" : "default");
  if (!(options in OPTION_SETS)) throw new UsageError("--options must be kinds, default or all");
  const seed = Number(values.seed);
  const slowMs = Number(values["slow-ms"]);
  if (!Number.isInteger(seed) || !Number.isFinite(slowMs) || slowMs < 0) throw new UsageError("bad --seed or --slow-ms");
  const timeoutS = values.timeout === undefined ? Math.max(120, Math.ceil(pages / 10)) : positive("timeout", values.timeout);
  const binary = values["binary-path"] ?? (values.binary ? BINARY : null);
  const growthRounds = Number(values["growth-rounds"]);
  if (values.analyze && values.store !== "postgres") throw new UsageError("--analyze needs --store postgres");
  const rateLimit = Number(values["rate-limit"]);
  if (!Number.isInteger(rateLimit) || rateLimit < 0 || rateLimit > 1_000_000) throw new UsageError("--rate-limit must be 0 to 1000000");
  if (!Number.isInteger(growthRounds) || growthRounds < 0 || growthRounds > 20) throw new UsageError("--growth-rounds must be an integer from 0 to 20");
  return {
    pages,
    site,
    options: options as OptionSetName,
    binary,
    seed,
    slowMs,
    timeoutS,
    concurrency: Math.round(positive("concurrency", values.concurrency)),
    capacity: !values["no-capacity"],
    keep: values.keep,
    check: !values["no-check"],
    linkinator: !values["no-linkinator"],
    linkinatorTimeoutS: positive("linkinator-timeout", values["linkinator-timeout"]),
    linkinatorConcurrency: Math.round(positive("linkinator-concurrency", values["linkinator-concurrency"])),
    wget2: !values["no-wget2"],
    apiLoad: values["api-load"],
    apiLoadSeconds: positive("api-load-seconds", values["api-load-seconds"]),
    apiLoadConnections: Math.round(positive("api-load-connections", values["api-load-connections"])),
    apiMixSeconds: values["api-mix-seconds"] === "0" ? 0 : positive("api-mix-seconds", values["api-mix-seconds"]),
    apiMixThreads: Math.round(positive("api-mix-threads", values["api-mix-threads"])),
    acceptEncoding: values["accept-encoding"] ?? null,
    apiMixWarm: values["api-mix-warm"],
    apiMixRate: values["api-mix-rate"] === undefined ? null : Math.round(positive("api-mix-rate", values["api-mix-rate"])),
    apiEndpoints: !values["no-api-endpoints"],
    loadGenerator: oneOf("load-generator", values["load-generator"], ["wrk", "autocannon"] as const),
    growthRounds: pages > GROWTH_BASE_PAGES ? growthRounds : 0,
    store: oneOf("store", values.store, ["sqlite", "postgres"] as const)!,
    analyze: values.analyze,
    rateLimit,
    strict: values.strict,
  };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

function stamp(): string {
  return new Date()
    .toISOString()
    .replace(/[:.]/g, "-")
    .replace(/-\d{3}Z$/, "Z");
}

/** Runs `body` with fresh site request logs and records their counts on the run. */
async function counted(site: RunningSite<SyntheticSite>, body: () => Promise<ToolRun>): Promise<ToolRun> {
  site.internal.requests.length = 0;
  site.external.requests.length = 0;
  site.bodyBytes = 0;
  const run = await body();
  if (run.status !== "skipped") {
    const byRequest = new Map<string, number>();
    for (const line of [...site.internal.requests, ...site.external.requests.map((line) => `ext:${line}`)]) byRequest.set(line, (byRequest.get(line) ?? 0) + 1);
    run.site_requests = {
      main: site.internal.requests.length,
      external: site.external.requests.length,
      distinct: byRequest.size,
      repeated: [...byRequest.values()].filter((n) => n > 1).length,
      body_mib: round(site.bodyBytes / 1024 / 1024, 1),
    };
  }
  return run;
}

/** The counts of a ground truth, for the result file (its URL lists would be megabytes). */
function truthCounts(truth: Totals) {
  const { pages, skipped_urls, broken_urls, ...counts } = truth;
  return { ...counts, broken_urls_count: broken_urls.length };
}

async function main(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    if (error.message) console.error(error.message);
    console.error(USAGE);
    return 2;
  }
  if (args.binary !== null && !existsSync(args.binary)) {
    console.error(`${args.binary} does not exist; run make build first`);
    return 2;
  }
  const flags = OPTION_SETS[args.options];
  const log = (line: string) => console.error(`[crawl-bench] ${line}`);

  const site = await startSyntheticSite({ pages: args.pages, seed: args.seed, slowDelayMs: args.slowMs, profile: args.site });
  // The 10,000-page site that time growth is measured from, when it is.
  const small =
    args.growthRounds > 0 ? await startSyntheticSite({ pages: GROWTH_BASE_PAGES, seed: args.seed, slowDelayMs: args.slowMs, profile: args.site }) : null;
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-crawl-bench-"));
  let service: Service | null = null;
  let database: BenchDatabase | null = null;
  try {
    log(`site: ${site.rootUrl} (external ${site.external.origin}), ${args.site}, ${args.pages} pages, seed ${args.seed}`);
    const began = performance.now();
    const truth = site.totals(flags);
    // linkinator and wget2 always check images, scripts and stylesheets: their own ground truth.
    const kindsFlags: CrawlFlags = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: false };
    const kindsTruth = args.options === "all" ? null : args.options === "kinds" ? truth : site.totals(kindsFlags);
    const allTruth = args.options === "all" ? truth : null;
    log(
      `ground truth (${args.options}) in ${Math.round(performance.now() - began)} ms: ${truth.pages_crawled} pages, ${truth.total_links} links, ${truth.broken_links} broken (${truth.broken_urls.length} distinct URLs), ${truth.skipped_links} skipped`,
    );
    const smallTruth = small === null ? null : small.totals(flags);
    if (small !== null) log(`growth: ${args.growthRounds} paired rounds from ${small.rootUrl} (${GROWTH_BASE_PAGES} pages) for the service and for check`);

    let capacity: LoadResult | null = null;
    if (args.capacity) {
      capacity = await measureCapacity(site, { concurrency: 64, durationMs: 3_000 });
      log(`site server capacity: ${capacity.req_per_s} req/s (${capacity.mib_per_s} MiB/s, 64 concurrent, p99 ${capacity.p99_ms} ms)`);
    }

    // Config for the service (YAML is a superset of JSON); check gets the same settings as flags.
    const port = freePort();
    const configPath = join(dir, "linkpatrol.yaml");
    const headerTimeoutS = Math.max(15, Math.ceil(args.slowMs / 1000) + 10);
    if (args.store === "postgres") {
      database = await freshBenchDatabase("crawl");
      log(`store: PostgreSQL database ${database.name} (fresh; dropped at the end)`);
    }
    const config = {
      server: { host: "127.0.0.1", port },
      storage: database === null ? { path: join(dir, "data", "linkpatrol.db") } : { path: join(dir, "data", "linkpatrol.db"), url: database.url },
      auth: { bootstrap_key: KEY, rate_limit: args.rateLimit },
      crawler: {
        concurrency: args.concurrency,
        per_host_concurrency: args.concurrency,
        header_timeout: `${headerTimeoutS}s`,
        body_timeout: `${headerTimeoutS}s`,
        max_pages: args.pages + 1000,
        max_duration: `${Math.ceil(args.timeoutS) + 60}s`,
        allowed_cidrs: ["127.0.0.1/32"],
      },
      logging: { level: "warn" },
    };
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const command = args.binary !== null ? [args.binary] : [process.execPath, join(ROOT, "src", "main.ts")];

    const runs: ToolRun[] = [];
    let serviceOk = false;
    let serviceFailed = false;
    let apiLoad: ApiLoadResult | null = null;
    try {
      service = await startService({ command, dir, configPath, port, sites: small === null ? [site] : [site, small] });
    } catch (error) {
      console.error(`CRAWL BENCH FAILED: ${(error as Error).message}`);
      return /domains add failed/.test((error as Error).message) ? 2 : 1;
    }
    const version = service.version;

    log("run 1: the service via the API");
    const serviceResult = await (async () => {
      let result: Awaited<ReturnType<typeof serviceCrawl>> | null = null;
      const run = await counted(site, async () => {
        result = await serviceCrawl(service!, { flags, truth, truthName: args.options, timeoutS: args.timeoutS, log });
        return result.run;
      });
      runs.push(run);
      return result!;
    })();
    serviceOk = serviceResult.allOk;
    serviceFailed = serviceResult.outcome !== "completed";
    if (serviceResult.outcome === "timeout" || serviceResult.outcome === "service_died") {
      console.error(`CRAWL BENCH FAILED: ${serviceResult.run.reason}`);
      console.error(`service stderr (tail):\n${tail(service.stderrPath)}`);
    }

    const generator = loadGenerator(args.loadGenerator);
    if (args.apiLoad && !serviceFailed && generator === null) {
      console.error(`api-load skipped: ${args.loadGenerator ?? "neither wrk (apt-get install wrk) nor autocannon (npm ci --prefix bench)"} is installed`);
    } else if (args.apiLoad && !serviceFailed && generator !== null) {
      if (database !== null && args.analyze) {
        const t = performance.now();
        await database.analyze();
        log(`store: ANALYZE of ${database.name} in ${Math.round(performance.now() - t)} ms`);
      }
      log(
        `api-load: a second crawl under ${args.apiLoadConnections} connections (${generator.name}): the mix for ${args.apiMixSeconds} s` +
          (args.apiEndpoints ? `, then ${args.apiLoadSeconds} s per endpoint` : ""),
      );
      try {
        apiLoad = await runApiLoad(service, {
          generator,
          flags,
          reportCrawlId: serviceResult.detail.id,
          connections: args.apiLoadConnections,
          seconds: args.apiLoadSeconds,
          mixSeconds: args.apiMixSeconds,
          mixThreads: args.apiMixThreads,
          acceptEncoding: args.acceptEncoding ?? undefined,
          mixWarm: args.apiMixWarm,
          mixRate: args.apiMixRate ?? undefined,
          endpoints: args.apiEndpoints,
          timeoutS: args.timeoutS + 120,
          dir,
          log,
        });
      } catch (error) {
        console.error(`api-load failed: ${(error as Error).message}`);
      }
    }
    const growth: GrowthResult[] = [];
    if (small !== null && !serviceFailed) {
      const crawlOf = (domainId: string, pages: number, siteTruth: Totals) => async () =>
        (await serviceCrawl(service!, { flags, truth: siteTruth, truthName: `${args.options}, ${pages} pages`, timeoutS: args.timeoutS, log, domainId })).run;
      growth.push(
        await measureGrowth({
          tool: "linkpatrol serve (API)",
          pages: args.pages,
          rounds: args.growthRounds,
          base: crawlOf(service.domainIds[1]!, GROWTH_BASE_PAGES, smallTruth!),
          large: crawlOf(service.domainId, args.pages, truth),
          log,
        }),
      );
    }
    await service.stop();
    service = null;

    let checkOk = true;
    let checkFailed = false;
    if (args.check) {
      log("run 2: linkpatrol check");
      const run = await counted(site, () =>
        runCheck({
          command,
          version,
          rootUrl: site.rootUrl,
          flags,
          truth,
          truthName: args.options,
          pages: args.pages,
          concurrency: args.concurrency,
          timeoutFlagS: headerTimeoutS,
          timeoutS: args.timeoutS,
          dir,
        }),
      );
      runs.push(run);
      checkFailed = run.status !== "ok";
      checkOk = isCorrect(run);
      if (small !== null && !checkFailed) {
        const checkOf = (rootUrl: string, pages: number, siteTruth: Totals) => () =>
          runCheck({
            command,
            version,
            rootUrl,
            flags,
            truth: siteTruth,
            truthName: `${args.options}, ${pages} pages`,
            pages,
            concurrency: args.concurrency,
            timeoutFlagS: headerTimeoutS,
            timeoutS: args.timeoutS,
            dir,
          });
        growth.push(
          await measureGrowth({
            tool: "linkpatrol check",
            pages: args.pages,
            rounds: args.growthRounds,
            base: checkOf(small.rootUrl, GROWTH_BASE_PAGES, smallTruth!),
            large: checkOf(site.rootUrl, args.pages, truth),
            log,
          }),
        );
      }
    }

    if (args.linkinator) {
      log(`run 3: linkinator (timeout ${args.linkinatorTimeoutS} s)`);
      runs.push(
        await counted(site, () =>
          runLinkinator({
            site: site.definition,
            flags,
            truth: allTruth ?? kindsTruth!,
            truthName: allTruth ? "all" : "all kinds, internal",
            concurrency: args.linkinatorConcurrency,
            requestTimeoutS: headerTimeoutS,
            timeoutS: args.linkinatorTimeoutS,
            dir,
          }),
        ),
      );
    } else runs.push({ tool: "linkinator", version: linkinatorVersion(), status: "skipped", reason: "--no-linkinator" });

    if (args.wget2) {
      log("run 4: wget2 --spider -r");
      const wTruth = kindsTruth ?? site.totals(kindsFlags);
      runs.push(
        await counted(site, () =>
          runWget2({ site: site.definition, truth: wTruth, truthName: "all kinds, internal", threads: args.concurrency, timeoutS: args.timeoutS, dir }),
        ),
      );
    } else runs.push({ tool: "wget2 --spider -r", version: wget2Version(), status: "skipped", reason: "--no-wget2" });

    const resultsDir = join(import.meta.dir, "out");
    const targetList = targets(runs, args.pages, apiLoad, growth, args.site);
    const result = {
      bench: "crawl",
      timestamp: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, mem_gib: round(totalmem() / 1024 ** 3, 1), kernel: release() },
      versions: {
        linkpatrol: version,
        mode: args.binary !== null ? "binary" : "source",
        bun: Bun.version,
        node: firstLine(["node", "--version"]),
        linkinator: linkinatorVersion(),
        wget2: wget2Version(),
        load_generator: apiLoad?.generator ?? null,
      },
      args: { ...args, binary: args.binary },
      service_config: config.crawler,
      site: { profile: args.site, ...site.definition.describe(), slow_delay_ms: site.slowDelayMs },
      options: { name: args.options, ...flags },
      site_capacity: capacity,
      ground_truth: { flags, ...truthCounts(truth) },
      ground_truth_all_kinds_internal: kindsTruth ? { flags: kindsFlags, ...truthCounts(kindsTruth) } : null,
      runs,
      api_load: apiLoad,
      growth,
      targets: targetList,
    };
    mkdirSync(resultsDir, { recursive: true });
    const resultPath = join(resultsDir, `crawl-${args.site}-${args.pages}-${args.options}${args.store === "postgres" ? "-postgres" : ""}-${stamp()}.json`);
    writeFileSync(resultPath, `${JSON.stringify(result, null, 2)}\n`);

    console.log(
      `crawl benchmark: ${args.site} site, ${args.pages} pages, ${args.options} options, ${result.versions.mode} ${version}, store ${args.store}, ${result.machine.cpus} cores, concurrency ${args.concurrency}`,
    );
    console.log(
      `ground truth: ${truth.pages_crawled} pages, ${truth.total_links} links, ${truth.broken_links} broken (${truth.broken_urls.length} URLs), ${truth.skipped_links} skipped${kindsTruth ? `; all kinds, internal: ${kindsTruth.total_links} links, ${kindsTruth.broken_urls.length} broken URLs` : ""}`,
    );
    if (capacity) console.log(`site capacity: ${capacity.req_per_s} req/s (64 concurrent, random pages, client in a child process)`);
    console.log("");
    for (const line of runsTable(runs)) console.log(line);
    console.log("");
    for (const line of targetsTable(targetList)) console.log(line);
    if (apiLoad !== null) {
      console.log("");
      for (const line of apiLoadTable(apiLoad)) console.log(line);
    }
    if (growth.length > 0) {
      console.log("");
      for (const line of growthTable(growth)) console.log(line);
    }
    for (const run of runs) {
      for (const url of run.broken?.missed_urls.slice(0, 3) ?? []) console.log(`  ${run.tool}: missed ${url}`);
      for (const url of run.broken?.false_positive_urls.slice(0, 3) ?? []) console.log(`  ${run.tool}: false positive ${url}`);
    }
    console.log(`result: ${resultPath}`);

    if (serviceFailed || checkFailed) {
      console.error("CRAWL BENCH FAILED: a linkpatrol run failed (see the table)");
      return 1;
    }
    if (!serviceOk || !checkOk || growth.some((g) => !g.all_correct)) {
      console.error("CRAWL BENCH: a linkpatrol run completed but its results differ from the ground truth");
      return 3;
    }
    if (args.strict && targetList.some((t) => t.pass === false && !t.informative)) {
      console.error("CRAWL BENCH: a target failed (--strict)");
      return 4;
    }
    return 0;
  } finally {
    if (service !== null) await service.stop();
    if (args.keep && database !== null) console.error(`[crawl-bench] kept database ${database.name}`);
    else await database?.drop();
    await site.stop();
    await small?.stop();
    if (args.keep) console.error(`[crawl-bench] kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));

/**
 * The crawl benchmark: one crawl of a synthetic site (bench/site) by the service as a user runs it, checked
 * against the site's ground truth.
 *
 *   bun bench/crawl.ts [--pages N] [--options default|all] [--binary | --binary-path FILE] [--seed S] [--slow-ms MS]
 *                      [--timeout SECONDS] [--no-capacity] [--keep]
 *
 * Steps: serve the site on two loopback ports (in this process) and compute its ground truth; measure the site
 * server's capacity from a child process (so the site is shown not to be the bottleneck); write a config into
 * a temp dir (its own store, a known bootstrap key, 127.0.0.1/32 allowed, concurrency 32, per-host 32,
 * header timeout above the slow pages' delay, max_pages above N); register the site's host as a domain the
 * operator vouches for (`domains add … --verified`); start `serve` (source: this Bun on src/main.ts; with
 * --binary: dist/linkpatrol, or --binary-path FILE); POST /v1/crawls and poll GET /v1/crawls/{id} every 200 ms until it ends
 * (bounded by --timeout), sampling the service's VmRSS every 100 ms; then read VmHWM and CPU time
 * (utime+stime of every thread) from /proc, page through GET /v1/crawls/{id}/broken, and compare with the
 * ground truth.
 *
 * Prints a summary and writes bench/results/crawl-<N>-<options>-<timestamp>.json.
 * Exit: 0 crawl completed and every count matches; 3 completed but something differs from the ground truth;
 * 1 the crawl failed, timed out or the service died; 2 usage or set-up error. Loopback only.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type GroundTruth, OPTION_SETS, type OptionSetName } from "./site/generate.ts";
import { type LoadResult, measureCapacity, startSiteServer } from "./site/server.ts";

const ROOT = join(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "linkpatrol");
const KEY = `lp_${"BenchCrawl0123456789".repeat(2)}`; // lp_ + 40 base62 characters
const POLL_MS = 200;
const SAMPLE_MS = 100;

class UsageError extends Error {}

interface Args {
  pages: number;
  options: OptionSetName;
  /** The executable to run, or null for the source (this Bun on src/main.ts). */
  binary: string | null;
  seed: number;
  slowMs: number;
  timeoutS: number;
  capacity: boolean;
  keep: boolean;
}

function parse(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: "string", default: "10000" },
      options: { type: "string", default: "default" },
      binary: { type: "boolean", default: false },
      "binary-path": { type: "string" },
      seed: { type: "string", default: "1" },
      "slow-ms": { type: "string", default: "2000" },
      timeout: { type: "string" },
      "no-capacity": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) throw new UsageError("");
  const pages = Number(values.pages);
  if (!Number.isInteger(pages) || pages < 100) throw new UsageError("--pages must be an integer >= 100");
  if (!(values.options in OPTION_SETS)) throw new UsageError("--options must be default or all");
  const seed = Number(values.seed);
  const slowMs = Number(values["slow-ms"]);
  if (!Number.isInteger(seed) || !Number.isFinite(slowMs) || slowMs < 0) throw new UsageError("bad --seed or --slow-ms");
  const timeoutS = values.timeout === undefined ? Math.max(120, Math.ceil(pages / 10)) : Number(values.timeout);
  if (!(timeoutS > 0)) throw new UsageError("--timeout must be a positive number of seconds");
  const binary = values["binary-path"] ?? (values.binary ? BINARY : null);
  return { pages, options: values.options as OptionSetName, binary, seed, slowMs, timeoutS, capacity: !values["no-capacity"], keep: values.keep };
}

// ---- /proc ------------------------------------------------------------------------------------------------

function procStatusKiB(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

const CLK_TCK = (() => {
  try {
    const out = Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim();
    return Number(out) > 0 ? Number(out) : 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of the whole process (all threads), in seconds. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

// ---- helpers ----------------------------------------------------------------------------------------------

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const mib = (kib: number | null) => (kib === null ? null : Math.round((kib / 1024) * 10) / 10);
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

async function api(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${origin}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON; the caller reports text
  }
  return { status: res.status, json, text };
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, "-").replace(/-\d{3}Z$/, "Z");
}

// ---- the run ----------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    if (error.message) console.error(error.message);
    console.error("usage: bun bench/crawl.ts [--pages N] [--options default|all] [--binary | --binary-path FILE] [--seed S] [--slow-ms MS] [--timeout S] [--no-capacity] [--keep]");
    return 2;
  }
  if (args.binary !== null && !existsSync(args.binary)) {
    console.error(`${args.binary} does not exist; run make build first`);
    return 2;
  }
  const flags = OPTION_SETS[args.options];
  const log = (line: string) => console.error(`[crawl-bench] ${line}`);

  const site = await startSiteServer({ pages: args.pages, seed: args.seed, slowDelayMs: args.slowMs });
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-crawl-bench-"));
  let service: ReturnType<typeof Bun.spawn> | null = null;
  try {
    log(`site: ${site.rootUrl} (external ${site.site.origins.external}), ${args.pages} pages, seed ${args.seed}`);
    let began = performance.now();
    const truth: GroundTruth = site.site.groundTruth(flags);
    log(`ground truth (${args.options}) in ${Math.round(performance.now() - began)} ms: ${truth.pages_crawled} pages, ${truth.total_links} links, ${truth.broken_links} broken (${truth.broken_urls.length} distinct URLs), ${truth.skipped_links} skipped`);

    let capacity: LoadResult | null = null;
    if (args.capacity) {
      capacity = await measureCapacity(site, { concurrency: 64, durationMs: 3_000 });
      log(`site server capacity: ${capacity.req_per_s} req/s (${capacity.mib_per_s} MiB/s, 64 concurrent, p99 ${capacity.p99_ms} ms)`);
    }
    site.resetStats();

    // Config: YAML is a superset of JSON.
    const port = freePort();
    const origin = `http://127.0.0.1:${port}`;
    const configPath = join(dir, "linkpatrol.yaml");
    const headerTimeoutS = Math.max(15, Math.ceil(args.slowMs / 1000) + 10);
    const config = {
      server: { host: "127.0.0.1", port },
      storage: { path: join(dir, "data", "linkpatrol.db") },
      auth: { bootstrap_key: KEY, rate_limit: 0 },
      crawler: {
        concurrency: 32,
        per_host_concurrency: 32,
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

    const version = Bun.spawnSync([...command, "version"], { cwd: dir }).stdout.toString().trim();
    const added = Bun.spawnSync([...command, "domains", "add", site.host, "--root-url", site.rootUrl, "--verified", "--json", "--config", configPath], { cwd: dir });
    if (added.exitCode !== 0) {
      console.error(`domains add failed (exit ${added.exitCode}): ${added.stderr.toString()}`);
      return 2;
    }
    const domainId = (JSON.parse(added.stdout.toString()) as { id: string }).id;

    const stderrPath = join(dir, "serve.stderr.log");
    service = Bun.spawn({ cmd: [...command, "serve", "--config", configPath], cwd: dir, stdout: "ignore", stderr: Bun.file(stderrPath) });
    const pid = service.pid;
    const startDeadline = Date.now() + 30_000;
    let healthy = false;
    while (Date.now() < startDeadline && service.exitCode === null) {
      try {
        if ((await fetch(`${origin}/healthz`)).status === 200) {
          healthy = true;
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(20);
    }
    if (!healthy) {
      console.error(`the service did not become healthy within 30 s (exit code ${service.exitCode}); stderr:\n${tail(stderrPath)}`);
      return 1;
    }
    await Bun.sleep(500);
    const idleRssKiB = procStatusKiB(pid, "VmRSS");
    const cpuBefore = cpuSeconds(pid) ?? 0;
    const runnerCpuBefore = process.cpuUsage();

    // Start the crawl.
    const t0 = performance.now();
    const created = await api(origin, "POST", "/crawls", { domain_id: domainId, options: flags });
    if (created.status !== 201) {
      const hint = created.status === 404 ? " (a service without the crawls API: a stale binary? run make build)" : "";
      console.error(`CRAWL BENCH FAILED: POST /v1/crawls: ${created.status} ${created.text}${hint}`);
      return 1;
    }
    const crawlId: string = created.json.data.id;
    log(`crawl ${crawlId} started (${args.options} options); polling every ${POLL_MS} ms, timeout ${args.timeoutS} s`);

    let maxRssKiB = idleRssKiB ?? 0;
    const sampler = setInterval(() => {
      const rss = procStatusKiB(pid, "VmRSS");
      if (rss !== null && rss > maxRssKiB) maxRssKiB = rss;
    }, SAMPLE_MS);
    let detail: any = null;
    let outcome: "completed" | "failed" | "timeout" | "service_died" = "timeout";
    let firstRunningMs: number | null = null;
    let lastReport = performance.now();
    const deadline = t0 + args.timeoutS * 1000;
    try {
      while (performance.now() < deadline) {
        if (service.exitCode !== null) {
          outcome = "service_died";
          break;
        }
        const res = await api(origin, "GET", `/crawls/${crawlId}`);
        if (res.status !== 200) throw new Error(`GET /v1/crawls/${crawlId}: ${res.status} ${res.text}`);
        detail = res.json.data;
        if (detail.status === "running" && firstRunningMs === null) firstRunningMs = performance.now() - t0;
        if (detail.status === "completed" || detail.status === "failed") {
          outcome = detail.status;
          break;
        }
        if (performance.now() - lastReport >= 5_000) {
          lastReport = performance.now();
          log(`${((lastReport - t0) / 1000).toFixed(0)} s: ${detail.status}, ${detail.pages_crawled} pages, ${detail.total_links} links, ${detail.broken_links} broken, RSS ${mib(procStatusKiB(pid, "VmRSS"))} MiB`);
        }
        await Bun.sleep(POLL_MS);
      }
    } finally {
      clearInterval(sampler);
    }
    const wallS = (performance.now() - t0) / 1000;
    const cpuAfter = cpuSeconds(pid);
    const hwmKiB = procStatusKiB(pid, "VmHWM");
    const runnerCpu = process.cpuUsage(runnerCpuBefore);

    if (outcome === "timeout" || outcome === "service_died") {
      const why = outcome === "timeout" ? `did not end within ${args.timeoutS} s` : `lost its service (exit code ${service.exitCode})`;
      console.error(`CRAWL BENCH FAILED: crawl ${crawlId} ${why}; last state: ${detail === null ? "none" : `${detail.status}, ${detail.pages_crawled} pages, ${detail.total_links} links`}`);
      console.error(`site requests so far: main ${site.stats.requests.main}, external ${site.stats.requests.external}`);
      const errors = tail(stderrPath);
      if (errors) console.error(`service stderr (tail):\n${errors}`);
      return 1;
    }

    // Read the broken links back.
    const brokenItems: any[] = [];
    const maxPages = Math.ceil((detail.broken_links ?? 0) / 100) + 2;
    let totalBrokenMeta: number | null = null;
    for (let page = 1; page <= maxPages; page++) {
      const res = await api(origin, "GET", `/crawls/${crawlId}/broken?limit=100&page=${page}`);
      if (res.status !== 200) throw new Error(`GET /v1/crawls/${crawlId}/broken: ${res.status} ${res.text}`);
      totalBrokenMeta = res.json.meta?.total_broken ?? null;
      brokenItems.push(...res.json.data);
      if (res.json.data.length < 100) break;
    }
    const linksMeta = await api(origin, "GET", `/crawls/${crawlId}/links?limit=1`);
    const found = new Set<string>(brokenItems.map((item) => item.url));
    const expected = new Set(truth.broken_urls);
    const hits = [...expected].filter((url) => found.has(url));
    const falsePositives = [...found].filter((url) => !expected.has(url)).sort();
    const missed = [...expected].filter((url) => !found.has(url)).sort();

    const serverS = detail.started_at && detail.completed_at ? (Date.parse(detail.completed_at) - Date.parse(detail.started_at)) / 1000 : null;
    const crawlCpuS = cpuAfter === null ? null : cpuAfter - cpuBefore;
    const correctness = {
      pages_crawled: { got: detail.pages_crawled, want: truth.pages_crawled, ok: detail.pages_crawled === truth.pages_crawled },
      total_links: { got: detail.total_links, want: truth.total_links, ok: detail.total_links === truth.total_links },
      broken_links: { got: detail.broken_links, want: truth.broken_links, ok: detail.broken_links === truth.broken_links },
      skipped_links: { got: detail.skipped_links, want: truth.skipped_links, ok: detail.skipped_links === truth.skipped_links },
      links_endpoint_total: { got: linksMeta.json?.meta?.total ?? null, want: truth.total_links, ok: linksMeta.json?.meta?.total === truth.total_links },
      broken_endpoint_items: { got: brokenItems.length, want: truth.broken_links, ok: brokenItems.length === truth.broken_links },
      broken_url_recall: round(expected.size === 0 ? 1 : hits.length / expected.size, 4),
      broken_urls_found: found.size,
      broken_urls_expected: expected.size,
      false_positives: falsePositives.length,
      false_positive_urls: falsePositives.slice(0, 20),
      missed_urls: missed.slice(0, 20),
      truncated: detail.truncated ?? null,
    };
    const allOk =
      outcome === "completed" &&
      correctness.pages_crawled.ok &&
      correctness.total_links.ok &&
      correctness.broken_links.ok &&
      correctness.skipped_links.ok &&
      correctness.broken_endpoint_items.ok &&
      missed.length === 0 &&
      falsePositives.length === 0;

    const requestsByKey = [...site.stats.byRequest.values()];
    const result = {
      bench: "crawl",
      timestamp: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, mem_gib: round(totalmem() / 1024 ** 3, 1), kernel: release(), bun: Bun.version },
      service: { mode: args.binary !== null ? "binary" : "source", version, config: config.crawler },
      site: site.site.describe(),
      options: { name: args.options, ...flags },
      site_capacity: capacity,
      crawl: {
        id: crawlId,
        status: detail.status,
        error: detail.error ?? null,
        wall_s: round(wallS),
        server_s: serverS === null ? null : round(serverS),
        pending_s: firstRunningMs === null ? null : round(firstRunningMs / 1000),
        pages_crawled: detail.pages_crawled,
        total_links: detail.total_links,
        broken_links: detail.broken_links,
        skipped_links: detail.skipped_links,
        pages_per_s: round(detail.pages_crawled / wallS, 1),
        links_per_s: round(detail.total_links / wallS, 0),
        cpu_s: crawlCpuS === null ? null : round(crawlCpuS),
        cpu_total_s: cpuAfter === null ? null : round(cpuAfter),
        cpu_utilisation: crawlCpuS === null ? null : round(crawlCpuS / wallS),
        rss_idle_mib: mib(idleRssKiB),
        rss_peak_sampled_mib: mib(maxRssKiB),
        vm_hwm_mib: mib(hwmKiB),
        runner_cpu_s: round((runnerCpu.user + runnerCpu.system) / 1e6),
      },
      site_requests: {
        main: site.stats.requests.main,
        external: site.stats.requests.external,
        distinct: site.stats.byRequest.size,
        repeated: requestsByKey.filter((n) => n > 1).length,
        max_per_request: requestsByKey.reduce((a, b) => Math.max(a, b), 0),
        repeated_examples: [...site.stats.byRequest].filter(([, n]) => n > 1).slice(0, 10).map(([key, n]) => `${key} x${n}`),
        body_mib: round(site.stats.bodyBytes / 1024 / 1024, 1),
      },
      ground_truth: { ...truth, broken_urls: undefined, broken_urls_count: truth.broken_urls.length },
      correctness,
      meta_total_broken: totalBrokenMeta,
    };

    const resultsDir = join(import.meta.dir, "results");
    mkdirSync(resultsDir, { recursive: true });
    const resultPath = join(resultsDir, `crawl-${args.pages}-${args.options}-${stamp()}.json`);
    writeFileSync(resultPath, `${JSON.stringify(result, null, 2)}\n`);

    const c = result.crawl;
    const yes = (ok: boolean) => (ok ? "ok" : "DIFFERS");
    console.log(`crawl benchmark: ${args.pages} pages, ${args.options} options, ${result.service.mode} ${version}, ${result.machine.cpus} cores`);
    console.log(`  status            ${c.status}${c.error ? ` (${c.error})` : ""}`);
    console.log(`  wall              ${c.wall_s} s (server started->completed ${c.server_s ?? "?"} s, pending ${c.pending_s ?? "?"} s)`);
    console.log(`  pages/s           ${c.pages_per_s}`);
    console.log(`  links/s           ${c.links_per_s}`);
    console.log(`  service CPU       ${c.cpu_s} s (${c.cpu_utilisation} cores avg); runner+site CPU ${c.runner_cpu_s} s`);
    console.log(`  service RSS       idle ${c.rss_idle_mib} MiB, peak sampled ${c.rss_peak_sampled_mib} MiB, VmHWM ${c.vm_hwm_mib} MiB`);
    console.log(`  site requests     main ${result.site_requests.main}, external ${result.site_requests.external}, distinct ${result.site_requests.distinct}, repeated ${result.site_requests.repeated}`);
    if (capacity) console.log(`  site capacity     ${capacity.req_per_s} req/s (64 concurrent, random pages)`);
    console.log(`  pages_crawled     ${c.pages_crawled} / ${truth.pages_crawled} ${yes(correctness.pages_crawled.ok)}`);
    console.log(`  total_links       ${c.total_links} / ${truth.total_links} ${yes(correctness.total_links.ok)}`);
    console.log(`  broken_links      ${c.broken_links} / ${truth.broken_links} ${yes(correctness.broken_links.ok)}`);
    console.log(`  skipped_links     ${c.skipped_links} / ${truth.skipped_links} ${yes(correctness.skipped_links.ok)}`);
    console.log(`  broken URLs       recall ${correctness.broken_url_recall} (${hits.length}/${expected.size}), false positives ${falsePositives.length}`);
    for (const url of missed.slice(0, 5)) console.log(`    missed          ${url}`);
    for (const url of falsePositives.slice(0, 5)) console.log(`    false positive  ${url}`);
    console.log(`  result            ${resultPath}`);

    if (outcome === "failed") {
      console.error(`CRAWL BENCH FAILED: the crawl ended failed: ${detail.error ?? "no error given"}`);
      return 1;
    }
    if (!allOk) {
      console.error("CRAWL BENCH: the crawl completed but its results differ from the ground truth");
      return 3;
    }
    return 0;
  } finally {
    if (service !== null && service.exitCode === null) {
      service.kill("SIGTERM");
      const killer = setTimeout(() => service?.kill("SIGKILL"), 10_000);
      await service.exited;
      clearTimeout(killer);
    }
    await site.stop();
    if (args.keep) console.error(`[crawl-bench] kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));

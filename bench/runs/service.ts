/**
 * The service as a user runs it: `serve --config FILE` (binary or source) in its own process, the site
 * registered with `domains add … --verified`, crawls started with POST /v1/crawls and polled with
 * GET /v1/crawls/{id} every 200 ms. `serviceCrawl` measures one crawl: wall from POST to the poll that sees it
 * end, the service's CPU during it (utime+stime of all threads from /proc), VmRSS sampled every 100 ms and
 * VmHWM, and correctness (counts, and the broken URLs read back through GET /v1/crawls/{id}/broken).
 */
import { join } from "node:path";
import type { RunningSite } from "../../test/fixtures/site-generator.ts";
import type { CrawlFlags, SiteTable, Totals } from "../../test/fixtures/site-model.ts";
import { cpuSeconds, mib, procStatusKiB, round, tail } from "../lib/proc.ts";
import { compareBroken, isCorrect, type ToolRun, withRates } from "../lib/tool-run.ts";

export const KEY = `lp_${"BenchCrawl0123456789".repeat(2)}`; // lp_ + 40 base62 characters
const POLL_MS = 200;
const SAMPLE_MS = 100;

export interface Service {
  pid: number;
  origin: string;
  /** The benchmark site's domain. */
  domainId: string;
  /** Every registered site's domain, in the order given to startService. */
  domainIds: string[];
  version: string;
  stderrPath: string;
  alive(): boolean;
  exitCode(): number | null;
  stop(): Promise<void>;
}

export async function api(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
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

/** Registers the sites (the first is the benchmark's) and starts `serve`; throws when it is not healthy in 30 s. */
export async function startService(o: { command: string[]; dir: string; configPath: string; port: number; sites: RunningSite<SiteTable>[] }): Promise<Service> {
  const version = Bun.spawnSync([...o.command, "version"], { cwd: o.dir })
    .stdout.toString()
    .trim();
  // `domains add` no longer creates a missing SQLite store (store/store-admission.ts): `migrate` makes it first,
  // or brings the PostgreSQL database named by storage.url to the schema, as an operator's set-up does.
  const migrated = Bun.spawnSync([...o.command, "migrate", "--config", o.configPath], { cwd: o.dir });
  if (migrated.exitCode !== 0) throw new Error(`migrate failed (exit ${migrated.exitCode}): ${migrated.stderr.toString()}`);
  const domainIds = o.sites.map((site) => {
    const added = Bun.spawnSync(
      [...o.command, "domains", "add", site.internal.host, "--root-url", site.rootUrl, "--verified", "--json", "--config", o.configPath],
      { cwd: o.dir },
    );
    if (added.exitCode !== 0) throw new Error(`domains add failed (exit ${added.exitCode}): ${added.stderr.toString()}`);
    return (JSON.parse(added.stdout.toString()) as { id: string }).id;
  });

  const stderrPath = join(o.dir, "serve.stderr.log");
  const proc = Bun.spawn({ cmd: [...o.command, "serve", "--config", o.configPath], cwd: o.dir, stdout: "ignore", stderr: Bun.file(stderrPath) });
  const origin = `http://127.0.0.1:${o.port}`;
  const service: Service = {
    pid: proc.pid,
    origin,
    domainId: domainIds[0]!,
    domainIds,
    version,
    stderrPath,
    alive: () => proc.exitCode === null,
    exitCode: () => proc.exitCode,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(killer);
    },
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && proc.exitCode === null) {
    try {
      if ((await fetch(`${origin}/healthz`)).status === 200) return service;
    } catch {
      // not listening yet
    }
    await Bun.sleep(20);
  }
  await service.stop();
  throw new Error(`the service did not become healthy within 30 s (exit code ${proc.exitCode}); stderr:\n${tail(stderrPath)}`);
}

/** POST /v1/crawls (of the benchmark site unless `domainId` names another); returns the crawl id or throws. */
export async function startCrawl(service: Service, flags: CrawlFlags, domainId = service.domainId): Promise<string> {
  const created = await api(service.origin, "POST", "/crawls", { domain_id: domainId, options: flags });
  if (created.status !== 201) {
    const hint = created.status === 404 ? " (a service without the crawls API: a stale binary? run make build)" : "";
    throw new Error(`POST /v1/crawls: ${created.status} ${created.text}${hint}`);
  }
  return created.json.data.id;
}

export type Outcome = "completed" | "failed" | "timeout" | "service_died";

/** Polls a crawl until it ends or `deadline` (performance.now() ms); `onPoll` sees every detail. */
export async function waitForCrawl(
  service: Service,
  crawlId: string,
  deadline: number,
  onPoll?: (detail: any) => void,
): Promise<{ outcome: Outcome; detail: any }> {
  let detail: any = null;
  while (performance.now() < deadline) {
    if (!service.alive()) return { outcome: "service_died", detail };
    const res = await api(service.origin, "GET", `/crawls/${crawlId}`);
    if (res.status !== 200) throw new Error(`GET /v1/crawls/${crawlId}: ${res.status} ${res.text}`);
    detail = res.json.data;
    onPoll?.(detail);
    if (detail.status === "completed" || detail.status === "failed") return { outcome: detail.status, detail };
    await Bun.sleep(POLL_MS);
  }
  return { outcome: "timeout", detail };
}

export interface ServiceCrawlResult {
  run: ToolRun;
  outcome: Outcome;
  /** Every count equal to the ground truth and the broken URLs exactly the expected ones. */
  allOk: boolean;
  detail: any;
}

export async function serviceCrawl(
  service: Service,
  o: { flags: CrawlFlags; truth: Totals; truthName: string; timeoutS: number; log: (line: string) => void; domainId?: string },
): Promise<ServiceCrawlResult> {
  const { pid } = service;
  await Bun.sleep(500);
  const idleRssKiB = procStatusKiB(pid, "VmRSS");
  const cpuBefore = cpuSeconds(pid) ?? 0;
  const runnerCpuBefore = process.cpuUsage();

  const t0 = performance.now();
  const crawlId = await startCrawl(service, o.flags, o.domainId);
  o.log(`crawl ${crawlId} started (${o.truthName} options); polling every ${POLL_MS} ms, timeout ${o.timeoutS} s`);
  let maxRssKiB = idleRssKiB ?? 0;
  const sampler = setInterval(() => {
    const rss = procStatusKiB(pid, "VmRSS");
    if (rss !== null && rss > maxRssKiB) maxRssKiB = rss;
  }, SAMPLE_MS);
  let firstRunningMs: number | null = null;
  let lastReport = performance.now();
  let waited: { outcome: Outcome; detail: any };
  try {
    waited = await waitForCrawl(service, crawlId, t0 + o.timeoutS * 1000, (detail) => {
      if (detail.status === "running" && firstRunningMs === null) firstRunningMs = performance.now() - t0;
      if (performance.now() - lastReport >= 5_000) {
        lastReport = performance.now();
        o.log(
          `${((lastReport - t0) / 1000).toFixed(0)} s: ${detail.status}, ${detail.pages_crawled} pages, ${detail.total_links} links, ${detail.broken_links} broken, RSS ${mib(procStatusKiB(pid, "VmRSS"))} MiB`,
        );
      }
    });
  } finally {
    clearInterval(sampler);
  }
  const { outcome, detail } = waited;
  const wallS = (performance.now() - t0) / 1000;
  const cpuAfter = cpuSeconds(pid);
  const hwmKiB = procStatusKiB(pid, "VmHWM");
  const runnerCpu = process.cpuUsage(runnerCpuBefore);
  const crawlCpuS = cpuAfter === null ? null : cpuAfter - cpuBefore;
  const base: ToolRun = {
    tool: "linkpatrol serve (API)",
    version: service.version,
    status: "ok",
    wall_s: round(wallS),
    cpu_s: crawlCpuS === null ? null : round(crawlCpuS),
    peak_rss_mib: mib(hwmKiB),
    links_meaning: "distinct (page, target) pairs (CONTRACT Link)",
  };
  if (outcome === "timeout" || outcome === "service_died") {
    const why = outcome === "timeout" ? `did not end within ${o.timeoutS} s` : `lost its service (exit code ${service.exitCode()})`;
    const last = detail === null ? "none" : `${detail.status}, ${detail.pages_crawled} pages, ${detail.total_links} links`;
    return {
      run: { ...base, status: outcome === "timeout" ? "timeout" : "failed", reason: `crawl ${crawlId} ${why}; last state: ${last}` },
      outcome,
      allOk: false,
      detail,
    };
  }

  // Read the broken links back.
  const brokenItems: any[] = [];
  const maxPages = Math.ceil((detail.broken_links ?? 0) / 100) + 2;
  let totalBrokenMeta: number | null = null;
  for (let page = 1; page <= maxPages; page++) {
    const res = await api(service.origin, "GET", `/crawls/${crawlId}/broken?limit=100&page=${page}`);
    if (res.status !== 200) throw new Error(`GET /v1/crawls/${crawlId}/broken: ${res.status} ${res.text}`);
    totalBrokenMeta = res.json.meta?.total_broken ?? null;
    brokenItems.push(...res.json.data);
    if (res.json.data.length < 100) break;
  }
  const linksMeta = await api(service.origin, "GET", `/crawls/${crawlId}/links?limit=1`);
  const broken = compareBroken(
    brokenItems.map((item) => item.url),
    o.truth,
    o.truthName,
  );
  const t = o.truth;
  const counts = {
    pages_crawled: { got: detail.pages_crawled, want: t.pages_crawled },
    total_links: { got: detail.total_links, want: t.total_links },
    broken_links: { got: detail.broken_links, want: t.broken_links },
    skipped_links: { got: detail.skipped_links, want: t.skipped_links },
    links_endpoint_total: { got: linksMeta.json?.meta?.total ?? null, want: t.total_links },
    broken_endpoint_items: { got: brokenItems.length, want: t.broken_links },
  };
  const countsOk = Object.values(counts).every((c) => c.got === c.want);
  const serverS = detail.started_at && detail.completed_at ? (Date.parse(detail.completed_at) - Date.parse(detail.started_at)) / 1000 : null;
  const run = withRates({
    ...base,
    status: outcome === "completed" ? "ok" : "failed",
    reason: outcome === "completed" ? undefined : `crawl failed: ${detail.error ?? "no error given"}`,
    pages: detail.pages_crawled,
    links: detail.total_links,
    broken,
    counts_ok: countsOk,
    extra: {
      crawl_id: crawlId,
      status: detail.status,
      error: detail.error ?? null,
      server_s: serverS === null ? null : round(serverS),
      pending_s: firstRunningMs === null ? null : round(firstRunningMs / 1000),
      skipped_links: detail.skipped_links,
      broken_links: detail.broken_links,
      truncated: detail.truncated ?? null,
      counts,
      meta_total_broken: totalBrokenMeta,
      cpu_total_s: cpuAfter === null ? null : round(cpuAfter),
      cpu_utilisation: crawlCpuS === null ? null : round(crawlCpuS / wallS),
      rss_idle_mib: mib(idleRssKiB),
      rss_peak_sampled_mib: mib(maxRssKiB),
      vm_hwm_mib: mib(hwmKiB),
      runner_cpu_s: round((runnerCpu.user + runnerCpu.system) / 1e6),
    },
  });
  return { run, outcome, allOk: isCorrect(run), detail };
}

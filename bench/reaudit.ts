/**
 * The nightly re-audit (issue 42 item 4): a synthetic site (test/fixtures/audited-site.ts, 3,000 pages by default)
 * audited by the service, 2 % of its pages changed, audited again reusing the first audit's pages, and again with
 * `full: true` (every page read), each round on a freshly changed 2 %; once with a site that answers validators
 * and 304s, once with one that sends none (every page 200: only the body hash spares the parse). The service runs
 * as a user runs it (`serve` in its own process, bench/runs/service.ts); CPU is its utime+stime during a crawl,
 * memory its VmRSS sampled every 100 ms. wget2's full spider of the same site is measured beside it.
 *
 *   bun bench/reaudit.ts [--pages 3000] [--rounds 2] [--concurrency 32] [--binary dist/linkpatrol] [--store sqlite|postgres] [--json FILE]
 *
 * --store postgres runs the service on a fresh PostgreSQL database (bench/lib/postgres.ts: created for the run,
 * dropped after); CPU is then the node's alone, the database server's apart (`db_cpu_s`, its backends' utime+stime).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AuditedSite } from "../test/fixtures/audited-site.ts";
import type { RunningSite } from "../test/fixtures/site-generator.ts";
import type { SiteTable } from "../test/fixtures/site-model.ts";
import { type BenchDatabase, freshBenchDatabase } from "./lib/postgres.ts";
import { cpuSeconds, mib, procStatusKiB, round, runMeasured } from "./lib/proc.ts";
import { api, KEY, startService, waitForCrawl, type Service } from "./runs/service.ts";

const ROOT = join(import.meta.dir, "..");
const FLAGS = { scan_images: true, scan_scripts: true, scan_stylesheets: true };

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "3000" },
    rounds: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    binary: { type: "string" },
    store: { type: "string", default: "sqlite" },
    json: { type: "string" },
  },
});
const pages = Number(values.pages);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
if (values.store !== "sqlite" && values.store !== "postgres") throw new Error(`--store: sqlite or postgres, not ${values.store}`);

interface Audit {
  site: string;
  kind: "first" | "incremental" | "full";
  wall_s: number;
  cpu_s: number;
  /** On PostgreSQL: the CPU of the database's backends during the crawl. */
  db_cpu_s?: number;
  rss_peak_mib: number | null;
  pages_crawled: number;
  pages_reused: number;
  total_links: number;
  broken_links: number;
  not_modified: number;
  pages_200: number;
}

/** CPU seconds of each backend serving database `name` now (found by their process titles). */
function backendCpu(name: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(` ${name} `)) continue;
    } catch {
      continue;
    }
    const seconds = cpuSeconds(pid);
    if (seconds !== null) cpu.set(pid, seconds);
  }
  return cpu;
}

/** CPU the backends of database `name` spent since `before` (a backend started since counts from zero). */
function backendCpuSince(name: string, before: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of backendCpu(name)) total += seconds - (before.get(pid) ?? 0);
  return total;
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** The little of a RunningSite that startService reads (the domain to register). */
function registered(site: AuditedSite): RunningSite<SiteTable> {
  return { internal: { host: new URL(site.origin).host }, rootUrl: site.rootUrl } as unknown as RunningSite<SiteTable>;
}

async function audit(service: Service, domainId: string, site: AuditedSite, name: string, kind: Audit["kind"]): Promise<Audit> {
  await Bun.sleep(300);
  site.counts = { pages200: 0, notModified: 0, conditional: 0, root: 0 };
  const cpu0 = cpuSeconds(service.pid) ?? 0;
  const db0 = database === null ? null : backendCpu(database.name);
  let rss = procStatusKiB(service.pid, "VmRSS") ?? 0;
  const sampler = setInterval(() => (rss = Math.max(rss, procStatusKiB(service.pid, "VmRSS") ?? 0)), 100);
  const t0 = performance.now();
  const created = await api(service.origin, "POST", "/crawls", { domain_id: domainId, options: FLAGS, ...(kind === "full" && { full: true }) });
  if (created.status !== 201) throw new Error(`POST /crawls: ${created.status} ${created.text}`);
  const { outcome, detail } = await waitForCrawl(service, created.json.data.id, t0 + 600_000);
  const wall = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const cpu = (cpuSeconds(service.pid) ?? 0) - cpu0;
  const dbCpu = database === null || db0 === null ? undefined : round(backendCpuSince(database.name, db0));
  if (outcome !== "completed") throw new Error(`${name} ${kind} audit: ${outcome}`);
  const result: Audit = {
    site: name,
    kind,
    wall_s: round(wall),
    cpu_s: round(cpu),
    ...(dbCpu !== undefined && { db_cpu_s: dbCpu }),
    rss_peak_mib: mib(rss),
    pages_crawled: detail.pages_crawled,
    pages_reused: detail.pages_reused,
    total_links: detail.total_links,
    broken_links: detail.broken_links,
    not_modified: site.counts.notModified,
    pages_200: site.counts.pages200,
  };
  console.log(JSON.stringify(result));
  return result;
}

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-reaudit-"));
const withValidators = await AuditedSite.start({ pages, validators: true });
const withoutValidators = await AuditedSite.start({ pages, validators: false });
// Audited once before anything is measured: the service's first crawl also pays for its worker's warm-up.
const warmUp = await AuditedSite.start({ pages: Math.min(pages, 500) });
const port = freePort();
const database: BenchDatabase | null = values.store === "postgres" ? await freshBenchDatabase("reaudit") : null;
const configPath = join(dir, "linkpatrol.yaml");
writeFileSync(
  configPath,
  JSON.stringify({
    server: { host: "127.0.0.1", port },
    storage: database === null ? { path: join(dir, "data", "linkpatrol.db") } : { url: database.url },
    auth: { bootstrap_key: KEY, rate_limit: 0 },
    crawler: { concurrency, per_host_concurrency: concurrency, max_pages: pages + 1000, allowed_cidrs: ["127.0.0.1/32"] },
    logging: { level: "warn" },
  }),
);
const command = values.binary !== undefined ? [values.binary] : [process.execPath, join(ROOT, "src", "main.ts")];
const service = await startService({
  command,
  dir,
  configPath,
  port,
  sites: [registered(withValidators), registered(withoutValidators), registered(warmUp)],
}).catch(async (error: unknown) => {
  await database?.drop();
  throw error;
});
const audits: Audit[] = [];
let wget2: { wall_s: number; cpu_s: number | null; peak_rss_mib: number | null } | null = null;
try {
  await audit(service, service.domainIds[2]!, warmUp, "warm-up", "first");
  for (const [index, [site, name]] of (
    [
      [withValidators, "validators"],
      [withoutValidators, "no validators"],
    ] as const
  ).entries()) {
    const domainId = service.domainIds[index]!;
    audits.push(await audit(service, domainId, site, name, "first"));
    for (let round = 0; round < rounds; round++) {
      site.change(0.02);
      audits.push(await audit(service, domainId, site, name, "incremental"));
      audits.push(await audit(service, domainId, site, name, "full"));
    }
  }
  const wget2Path = Bun.which("wget2");
  if (wget2Path !== null) {
    const site = withValidators;
    const cmd = [wget2Path, "--no-config", "--spider", "-r", "-l", "inf", `--max-threads=${concurrency}`, "-e", "robots=on", "--no-parent", "--tries=1"];
    cmd.push("--reject-regex", `^${site.table.origins.external.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`, "-o", join(dir, "wget2.log"), site.rootUrl);
    const measured = await runMeasured(cmd, { cwd: dir, timeoutS: 600 });
    wget2 = { wall_s: round(measured.wall_s), cpu_s: measured.cpu_s === null ? null : round(measured.cpu_s), peak_rss_mib: measured.peak_rss_mib };
    console.log(JSON.stringify({ wget2 }));
  }
} finally {
  await service.stop();
  await withValidators.stop();
  await withoutValidators.stop();
  await warmUp.stop();
  await database?.drop();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const name of ["validators", "no validators"]) {
  const first = audits.find((a) => a.site === name && a.kind === "first")!;
  for (const kind of ["incremental", "full"] as const) {
    const runs = audits.filter((a) => a.site === name && a.kind === kind);
    const cpu = median(runs.map((a) => a.cpu_s));
    const wall = median(runs.map((a) => a.wall_s));
    const vsWget2 = wget2 === null ? "" : `, wall ${round(wall / wget2.wall_s)} × wget2's spider`;
    const reused = median(runs.map((a) => a.pages_reused));
    const db = first.db_cpu_s === undefined ? "" : `; the database's backends ${median(runs.map((a) => a.db_cpu_s ?? 0))} s against ${first.db_cpu_s} s`;
    console.log(
      `${name}, ${kind} re-audit (median of ${runs.length}; ${reused} pages reused): CPU ${cpu} s = ${round(cpu / first.cpu_s)} × the first audit (${first.cpu_s} s), ` +
        `wall ${wall} s = ${round(wall / first.wall_s)} × (${first.wall_s} s)${vsWget2}${db}`,
    );
  }
}
// Each round's re-audit against the full re-audit right after it, on the same changed site: the fairest pair.
for (const name of ["validators", "no validators"]) {
  const incremental = audits.filter((a) => a.site === name && a.kind === "incremental");
  const full = audits.filter((a) => a.site === name && a.kind === "full");
  const cpu = incremental.map((a, i) => round(a.cpu_s / full[i]!.cpu_s));
  const wall = incremental.map((a, i) => round(a.wall_s / full[i]!.wall_s));
  console.log(`${name}, re-audit / full re-audit per round: CPU ${cpu.join(", ")} (median ${median(cpu)}), wall ${wall.join(", ")} (median ${median(wall)})`);
}
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify({ pages, rounds, concurrency, audits, wget2 }, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });

/**
 * Several nodes against one node on many slow sites (issue 43: "three nodes with many slow sites finish ~3× the
 * crawls of one node in the same time"). Serves `--sites` synthetic sites on 127.0.0.1, each on its own port (its
 * own domain), every answer held `--delay-ms` (bench/lib/slow-site.ts), so a crawl is bound by its site
 * (`crawler.per_host_concurrency` ÷ delay) and not by the CPU. Then, for each node count in `--nodes` (1,3), in
 * `--rounds` alternating rounds: a fresh PostgreSQL database (bench/lib/postgres.ts), the sites registered and
 * verified with `domains add --verified`, that many `serve` processes of one binary on one config (each its own
 * port and LINKPATROL_CLUSTER_NODE_NAME), each node running at most `--workers` crawls at once
 * (`crawler.workers`), so one node cannot run them all; one crawl per site started through the API, round robin
 * over the nodes as a load balancer would, then every crawl polled until it ends.
 *
 * Measured per run: the time from the first POST to the poll that sees the last crawl end, crawls per minute,
 * each crawl's node (its detail names it while it runs) and server-side start and end, each node's CPU; every
 * crawl's totals against its site's ground truth (site-model.ts). Prints one table and the ratio of crawls per
 * minute, and writes bench/out/cluster-throughput-<timestamp>.json.
 *
 *   bun bench/cluster-throughput.ts [--nodes 1,3] [--rounds 1] [--sites 12] [--pages 300] [--delay-ms 200]
 *                                   [--workers 2] [--per-host 4] [--site classic|realistic] [--binary-path FILE]
 *                                   [--timeout S]
 *
 * Exit 0: every crawl of every run completed with its site's totals; 1: a run failed, timed out or differs;
 * 2: usage. Loopback only; every wait is bounded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { RunningSite, SyntheticSite } from "../test/fixtures/site-generator.ts";
import type { CrawlFlags, Totals } from "../test/fixtures/site-model.ts";
import { type BenchDatabase, freshBenchDatabase } from "./lib/postgres.ts";
import { cpuSeconds, round as roundTo, tail } from "./lib/proc.ts";
import { startSlowSite } from "./lib/slow-site.ts";
import { api, KEY } from "./runs/service.ts";

const ROOT = join(import.meta.dir, "..");
/** Anchors only: the fewest requests per page, so the delay, not the count of kinds, sets a crawl's length. */
const FLAGS: CrawlFlags = { scan_images: false, scan_scripts: false, scan_stylesheets: false, follow_external: false };
const POLL_MS = 250;

interface Args {
  nodes: number[];
  rounds: number;
  sites: number;
  pages: number;
  delayMs: number;
  workers: number;
  perHost: number;
  site: "classic" | "realistic";
  binary: string;
  timeoutS: number;
}

interface Node {
  name: string;
  origin: string;
  pid: number;
  stderrPath: string;
  alive(): boolean;
  stop(): Promise<void>;
}

interface CrawlRecord {
  site: number;
  crawl_id: string;
  posted_to: string;
  /** Every node seen running it, in order (more than one: it moved). */
  nodes: string[];
  status: string | null;
  started_at: string | null;
  completed_at: string | null;
  server_s: number | null;
  counts: Record<string, { got: number | null; want: number }>;
  exact: boolean;
}

interface RunResult {
  round: number;
  nodes: number;
  database: string;
  wall_s: number;
  crawls: number;
  completed: number;
  crawls_per_min: number;
  all_exact: boolean;
  /** How many crawls each node ran. */
  per_node: Record<string, number>;
  /** The most crawls seen running at once, and on each node. */
  max_running: number;
  node_cpu_s: Record<string, number | null>;
  loadavg_1m_after: number;
  records: CrawlRecord[];
  failure: string | null;
}

class UsageError extends Error {}

function parse(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: "string", default: "1,3" },
      rounds: { type: "string", default: "1" },
      sites: { type: "string", default: "12" },
      pages: { type: "string", default: "300" },
      "delay-ms": { type: "string", default: "200" },
      workers: { type: "string", default: "2" },
      "per-host": { type: "string", default: "4" },
      site: { type: "string", default: "classic" },
      "binary-path": { type: "string", default: join(ROOT, "dist", "linkpatrol") },
      timeout: { type: "string", default: "900" },
    },
  });
  const int = (name: string, value: string | undefined, min: number, max: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
    return n;
  };
  if (values.site !== "classic" && values.site !== "realistic") throw new UsageError("--site must be classic or realistic");
  return {
    nodes: (values.nodes ?? "").split(",").map((n) => int("nodes", n, 1, 8)),
    rounds: int("rounds", values.rounds, 1, 10),
    sites: int("sites", values.sites, 1, 100),
    pages: int("pages", values.pages, 100, 100_000),
    delayMs: int("delay-ms", values["delay-ms"], 0, 10_000),
    workers: int("workers", values.workers, 1, 64),
    perHost: int("per-host", values["per-host"], 1, 64),
    site: values.site,
    binary: values["binary-path"]!,
    timeoutS: int("timeout", values.timeout, 10, 7_200),
  };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * Starts `serve` as node `name` on `port`; resolves once the bench's key is accepted, or throws after 30 s. Not at
 * the first /healthz 200: serve binds its port before it writes the bootstrap key (src/cli/serve.ts), and on
 * PostgreSQL that write takes long enough for a request in between to be refused 401.
 */
async function startNode(o: { binary: string; dir: string; configPath: string; name: string; port: number }): Promise<Node> {
  const stderrPath = join(o.dir, `${o.name}.stderr.log`);
  const proc = Bun.spawn({
    cmd: [o.binary, "serve", "--config", o.configPath],
    cwd: o.dir,
    env: { ...process.env, LINKPATROL_CLUSTER_NODE_NAME: o.name, LINKPATROL_SERVER_PORT: String(o.port) },
    stdin: "ignore",
    stdout: "ignore",
    stderr: Bun.file(stderrPath),
  });
  const node: Node = {
    name: o.name,
    origin: `http://127.0.0.1:${o.port}`,
    pid: proc.pid,
    stderrPath,
    alive: () => proc.exitCode === null,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
      await proc.exited;
      clearTimeout(killer);
    },
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && proc.exitCode === null) {
    try {
      if ((await api(node.origin, "GET", "/domains")).status === 200) return node;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  await node.stop();
  throw new Error(`node ${o.name} did not become healthy within 30 s (exit ${proc.exitCode}); stderr:\n${tail(stderrPath)}`);
}

/** The config every node shares; its port and name come from the environment. */
function writeConfig(dir: string, database: BenchDatabase, a: Args): string {
  const headerTimeoutS = Math.max(15, Math.ceil(a.delayMs / 1000) + 10);
  const config = {
    server: { host: "127.0.0.1", port: 0 },
    storage: { path: join(dir, "unused.db"), url: database.url },
    auth: { bootstrap_key: KEY, rate_limit: 0 },
    crawler: {
      workers: a.workers,
      concurrency: a.perHost,
      per_host_concurrency: a.perHost,
      header_timeout: `${headerTimeoutS}s`,
      body_timeout: `${headerTimeoutS}s`,
      max_pages: a.pages + 1000,
      max_duration: `${a.timeoutS + 60}s`,
      allowed_cidrs: ["127.0.0.1/32"],
    },
    logging: { level: process.env.BENCH_LOG_LEVEL ?? "warn" },
  };
  const path = join(dir, "linkpatrol.yaml");
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

/** Registers each site as a verified domain (the first command on the empty database applies its schema). */
function addDomains(binary: string, dir: string, configPath: string, sites: RunningSite<SyntheticSite>[]): string[] {
  return sites.map((site) => {
    const added = Bun.spawnSync([binary, "domains", "add", site.internal.host, "--root-url", site.rootUrl, "--verified", "--json", "--config", configPath], {
      cwd: dir,
    });
    if (added.exitCode !== 0) throw new Error(`domains add ${site.internal.host} failed (exit ${added.exitCode}): ${added.stderr.toString()}`);
    return (JSON.parse(added.stdout.toString()) as { id: string }).id;
  });
}

function compare(detail: any, truth: Totals): { counts: CrawlRecord["counts"]; exact: boolean } {
  const counts = {
    pages_crawled: { got: detail?.pages_crawled ?? null, want: truth.pages_crawled },
    total_links: { got: detail?.total_links ?? null, want: truth.total_links },
    broken_links: { got: detail?.broken_links ?? null, want: truth.broken_links },
    skipped_links: { got: detail?.skipped_links ?? null, want: truth.skipped_links },
  };
  return { counts, exact: detail?.status === "completed" && Object.values(counts).every((c) => c.got === c.want) };
}

/** One run: `count` nodes on a fresh database, one crawl per site, until every crawl ends. */
async function runCluster(
  a: Args,
  round: number,
  count: number,
  sites: RunningSite<SyntheticSite>[],
  truths: Totals[],
  log: (line: string) => void,
): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cluster-bench-"));
  const database = await freshBenchDatabase("cluster");
  const nodes: Node[] = [];
  try {
    const configPath = writeConfig(dir, database, a);
    const domainIds = addDomains(a.binary, dir, configPath, sites);
    for (let i = 0; i < count; i++)
      nodes.push(await startNode({ binary: a.binary, dir, configPath, name: `node-${String.fromCharCode(97 + i)}`, port: freePort() }));
    const cpuBefore = nodes.map((n) => cpuSeconds(n.pid));
    log(`round ${round}, ${count} node(s) on ${database.name}: ${sites.length} crawls, ${a.workers} at once per node`);

    const t0 = performance.now();
    const records: CrawlRecord[] = [];
    for (const [i, domainId] of domainIds.entries()) {
      const node = nodes[i % nodes.length]!;
      const res = await api(node.origin, "POST", "/crawls", { domain_id: domainId, options: FLAGS });
      if (res.status !== 201) throw new Error(`POST /v1/crawls to ${node.name}: ${res.status} ${res.text}; its stderr:\n${tail(node.stderrPath)}`);
      records.push({
        site: i,
        crawl_id: res.json.data.id,
        posted_to: node.name,
        nodes: [],
        status: null,
        started_at: null,
        completed_at: null,
        server_s: null,
        counts: {},
        exact: false,
      });
    }

    // Bounded by --timeout; a node that dies ends the run as a failure.
    const deadline = t0 + a.timeoutS * 1000;
    let maxRunning = 0;
    let failure: string | null = null;
    let polls = 0;
    let lastReport = t0;
    while (performance.now() < deadline) {
      if (nodes.some((n) => !n.alive())) {
        failure = `a node died: ${nodes.filter((n) => !n.alive()).map((n) => `${n.name}: ${tail(n.stderrPath)}`)}`;
        break;
      }
      let running = 0;
      for (const record of records.filter((r) => r.status !== "completed" && r.status !== "failed")) {
        const node = nodes[polls++ % nodes.length]!;
        const res = await api(node.origin, "GET", `/crawls/${record.crawl_id}`);
        if (res.status !== 200) throw new Error(`GET /v1/crawls/${record.crawl_id} from ${node.name}: ${res.status} ${res.text}`);
        const d = res.json.data;
        record.status = d.status;
        if (d.status === "running") running++;
        if (typeof d.node === "string" && record.nodes.at(-1) !== d.node) record.nodes.push(d.node);
        if (d.status === "completed" || d.status === "failed") {
          record.started_at = d.started_at ?? null;
          record.completed_at = d.completed_at ?? null;
          record.server_s = d.started_at && d.completed_at ? roundTo((Date.parse(d.completed_at) - Date.parse(d.started_at)) / 1000) : null;
          Object.assign(record, compare(d, truths[record.site]!));
        }
      }
      maxRunning = Math.max(maxRunning, running);
      const ended = records.filter((r) => r.status === "completed" || r.status === "failed").length;
      if (ended === records.length) break;
      if (performance.now() - lastReport >= 10_000) {
        lastReport = performance.now();
        log(`  ${Math.round((lastReport - t0) / 1000)} s: ${ended} ended, ${running} running`);
      }
      await Bun.sleep(POLL_MS);
    }
    const wallS = (performance.now() - t0) / 1000;
    const completed = records.filter((r) => r.status === "completed").length;
    if (failure === null && records.some((r) => r.status !== "completed" && r.status !== "failed")) failure = `not every crawl ended within ${a.timeoutS} s`;
    const perNode: Record<string, number> = {};
    for (const r of records) {
      const key = r.nodes.join("->") || "(never seen running)";
      perNode[key] = (perNode[key] ?? 0) + 1;
    }
    const nodeCpu = Object.fromEntries(
      nodes.map((n, i) => {
        const after = cpuSeconds(n.pid);
        const before = cpuBefore[i];
        return [n.name, after === null || before === null || before === undefined ? null : roundTo(after - before)];
      }),
    );
    return {
      round,
      nodes: count,
      database: database.name,
      wall_s: roundTo(wallS),
      crawls: records.length,
      completed,
      crawls_per_min: roundTo((completed / wallS) * 60),
      all_exact: failure === null && records.every((r) => r.exact),
      per_node: perNode,
      max_running: maxRunning,
      node_cpu_s: nodeCpu,
      loadavg_1m_after: roundTo(loadavg()[0] ?? 0),
      records,
      failure,
    };
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  let a: Args;
  try {
    a = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    console.error(error.message);
    console.error(
      "usage: bun bench/cluster-throughput.ts [--nodes 1,3] [--rounds R] [--sites S] [--pages N] [--delay-ms MS] [--workers W] [--per-host C] [--site classic|realistic] [--binary-path FILE] [--timeout S]",
    );
    return 2;
  }
  const log = (line: string) => console.error(`[cluster-bench] ${line}`);
  const sites = await Promise.all(
    Array.from({ length: a.sites }, (_, i) => startSlowSite({ pages: a.pages, seed: i + 1, delayMs: a.delayMs, profile: a.site })),
  );
  try {
    const truths = sites.map((site) => site.totals(FLAGS));
    log(
      `${a.sites} ${a.site} sites of ${a.pages} pages (seeds 1-${a.sites}), every answer held ${a.delayMs} ms; truth of site 1: ${truths[0]!.pages_crawled} pages, ${truths[0]!.total_links} links, ${truths[0]!.broken_links} broken`,
    );
    const runs: RunResult[] = [];
    for (let round = 1; round <= a.rounds; round++) {
      for (const count of a.nodes) {
        const run = await runCluster(a, round, count, sites, truths, log);
        runs.push(run);
        log(
          `round ${round}, ${count} node(s): ${run.completed}/${run.crawls} completed in ${run.wall_s} s, ${run.crawls_per_min} crawls/min, exact ${run.all_exact}, per node ${JSON.stringify(run.per_node)}, CPU ${JSON.stringify(run.node_cpu_s)}${run.failure ? `; FAILED: ${run.failure}` : ""}`,
        );
      }
    }
    const lines = [
      `cluster throughput: ${a.sites} sites × ${a.pages} pages (${a.site}, anchors only), every answer held ${a.delayMs} ms, per-host concurrency ${a.perHost}, crawler.workers ${a.workers} per node; ${cpus().length} cores`,
      "",
      "| round | nodes | wall | crawls/min | crawls exact | crawls per node | most running at once | node CPU s | load (1 min) after |",
      "|---|---|---|---|---|---|---|---|---|",
      ...runs.map(
        (r) =>
          `| ${r.round} | ${r.nodes} | ${r.wall_s} s | ${r.crawls_per_min} | ${r.records.filter((c) => c.exact).length}/${r.crawls} | ${Object.entries(
            r.per_node,
          )
            .map(([n, c]) => `${n} ${c}`)
            .join(", ")} | ${r.max_running} | ${Object.values(r.node_cpu_s).join(" / ")} | ${r.loadavg_1m_after} |`,
      ),
    ];
    const base = a.nodes[0]!;
    for (const count of a.nodes.slice(1)) {
      const ratios = runs
        .filter((r) => r.nodes === count)
        .map((r) => {
          const partner = runs.find((p) => p.round === r.round && p.nodes === base);
          return partner ? roundTo(r.crawls_per_min / partner.crawls_per_min) : null;
        });
      lines.push("", `crawls/min, ${count} nodes ÷ ${base} node(s), per round: ${ratios.join(", ")}`);
    }
    for (const line of lines) console.log(line);
    const outDir = join(import.meta.dir, "out");
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `cluster-throughput-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ bench: "cluster-throughput", timestamp: new Date().toISOString(), args: a, flags: FLAGS, truths: truths.map(({ pages, skipped_urls, broken_urls, ...counts }) => counts), runs }, null, 2)}\n`,
    );
    console.log(`result: ${file}`);
    return runs.every((r) => r.all_exact) ? 0 : 1;
  } finally {
    await Promise.all(sites.map((site) => site.stop()));
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));

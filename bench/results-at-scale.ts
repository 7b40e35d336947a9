/**
 * What the crawl page's grouped results cost on a big crawl: a store filled directly (no crawl) with one
 * completed crawl of `--links` links (default 500,000) from 10,000 pages to `--targets` distinct targets, a
 * share `--broken` of them broken (default 0.2) (404 / 500 / no answer, on 40 hosts) and 2 % of the targets answering with a
 * warning, then the dashboard's queries timed through TargetResultsRepo, median of 5: page 1 and the last page
 * of each sort, the host summary, a target's linking pages, the warning class, the filtered download's stream.
 *
 *   bun bench/results-at-scale.ts [--links N] [--targets N] [--broken SHARE] [--keep]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../src/store/migrate.ts";
import { openDatabase } from "../src/store/sqlite.ts";
import { SqliteDb } from "../src/store/sqlite-db.ts";
import { TargetResultsRepo, type BrokenTargetFilter, type Sorting, type TargetSort } from "../src/store/target-results.repo.ts";

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const LINKS = arg("links", 500_000);
const TARGETS = arg("targets", 100_000);
/** The share of targets that are broken. */
const BROKEN = arg("broken", 0.2);
const PAGES = 10_000;
console.log(
  `load average at start: ${(await import("node:os"))
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")}`,
);
const dir = mkdtempSync(join(tmpdir(), "lp-results-"));
const db = openDatabase(join(dir, "store.db"), { create: true });
migrate(db);

// Deterministic: mulberry32, no Math.random.
let seed = 12345;
function next(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const crawlId = "0190b6f2-7a3e-7c4d-9e1f-000000000001";
const started = Date.now();
db.exec(
  `INSERT INTO domains (id, name, root_url, verification_token, verified_at) VALUES ('d1', 'site.test', 'http://site.test/', 't', '2026-01-01T00:00:00Z')`,
);
db.exec(`INSERT INTO crawls (id, domain_id, status, options, total_links, broken_links, created_at, started_at, completed_at)
  VALUES ('${crawlId}', 'd1', 'completed', '{}', ${LINKS}, 0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z')`);
db.transaction(() => {
  const target = db.prepare(
    "INSERT INTO crawl_targets (id, crawl_id, url, state, internal, depth, status_code, is_broken, error, warning) VALUES (?, ?, ?, 'done', ?, 1, ?, ?, ?, ?)",
  );
  for (let i = 1; i <= TARGETS; i++) {
    const r = next();
    const external = r < 0.3;
    const host = external ? `ext${i % 40}.example:${8000 + (i % 7)}` : "site.test";
    const broken = next() < BROKEN;
    const status = broken ? [404, 500, 0][i % 3]! : 200;
    const warning = !broken && next() < 0.1 ? "HTTP 403: the site refuses automated checks; the link was not judged broken" : null;
    target.run(i, crawlId, `http://${host}/p/${i}`, external ? 0 : 1, status, broken ? 1 : 0, status === 0 ? "connection refused" : null, warning);
  }
  const link = db.prepare("INSERT INTO links (id, crawl_id, source_url, target_id, link_text, kind) VALUES (?, ?, ?, ?, ?, 'anchor')");
  const broken = db.prepare("INSERT INTO broken_links (link_id, crawl_id, target_id, broken_since) VALUES (?, ?, ?, ?)");
  const isBroken = db.prepare<{ b: number }, [number]>("SELECT is_broken AS b FROM crawl_targets WHERE id = ?");
  const brokenOf = new Uint8Array(TARGETS + 1);
  for (let i = 1; i <= TARGETS; i++) brokenOf[i] = isBroken.get(i)!.b;
  for (let id = 1; id <= LINKS; id++) {
    // A skewed choice: a few targets linked from thousands of pages (nav links), most from a few.
    const t = next() < 0.1 ? 1 + Math.floor(next() * 50) : 1 + Math.floor(next() * TARGETS);
    link.run(id, crawlId, `http://site.test/page/${id % PAGES}`, t, `text ${id}`);
    if (brokenOf[t] === 1) broken.run(id, crawlId, t, `2025-12-${String(1 + (id % 28)).padStart(2, "0")}T00:00:00Z`);
  }
})();
db.exec(`UPDATE crawls SET broken_links = (SELECT COUNT(*) FROM broken_links WHERE crawl_id = '${crawlId}') WHERE id = '${crawlId}'`);
db.exec("ANALYZE");
const brokenLinks = (db.query("SELECT broken_links AS n FROM crawls").get() as { n: number }).n;
console.log(`store: ${LINKS} links, ${TARGETS} targets, ${brokenLinks} broken links, filled in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const repo = new TargetResultsRepo(new SqliteDb(db));
/** Median of 5 runs: wall ms and CPU ms of this process (the machine's other load shows in the first only). */
async function median(run: () => Promise<unknown>): Promise<[number, number]> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await run();
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  return [wall.sort((a, b) => a - b)[2]!, cpu.sort((a, b) => a - b)[2]!];
}

const rows: [string, [number, number]][] = [];
const size = 50;
for (const [label, filter] of [
  ["broken", {}],
  ["5xx, one host", { statusClass: "5xx", host: "ext3.example:8003" }],
  ["warning", { statusClass: "warning" }],
] as [string, BrokenTargetFilter][]) {
  const total = (await repo.count(crawlId, filter)).targets;
  const last = Math.max(0, Math.ceil(total / size) - 1) * size;
  rows.push([`${label}: count (${total} targets)`, await median(() => repo.count(crawlId, filter))]);
  for (const by of ["found", "links", "url"] as TargetSort[]) {
    const sorting: Sorting<TargetSort> = { by, descending: by === "links" };
    rows.push([`${label}: page 1 by ${by}`, await median(() => repo.page(crawlId, filter, sorting, 0, size))]);
    rows.push([`${label}: last page by ${by}`, await median(() => repo.page(crawlId, filter, sorting, last, size))]);
  }
  rows.push([`${label}: host summary`, await median(() => repo.hosts(crawlId, filter, 20))]);
}
const busiest = (await repo.page(crawlId, {}, { by: "links", descending: true }, 0, 1))[0]!;
const sources = await repo.countSources(crawlId, busiest.target_id, {});
rows.push([`linking pages of the busiest broken target (${sources}): count`, await median(() => repo.countSources(crawlId, busiest.target_id, {}))]);
rows.push(["… page 1 by source", await median(() => repo.sources(crawlId, busiest.target_id, {}, { by: "source", descending: false }, 0, size))]);
rows.push([
  "… last page by source",
  await median(() => repo.sources(crawlId, busiest.target_id, {}, { by: "source", descending: false }, Math.floor((sources - 1) / size) * size, size)),
]);
let streamed = 0;
const stream = await median(async () => {
  streamed = 0;
  for await (const batch of repo.links(crawlId, {})) streamed += batch.length;
});
rows.push([`filtered download stream, all broken links (${streamed})`, stream]);

console.log("\n| query | wall ms | CPU ms |\n|---|---|---|");
for (const [label, [wall, cpu]] of rows) console.log(`| ${label} | ${wall.toFixed(1)} | ${cpu.toFixed(1)} |`);
db.close();
if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
else console.log(`kept ${dir}`);

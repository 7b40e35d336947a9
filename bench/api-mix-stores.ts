/**
 * The API latency mix on SQLite and on PostgreSQL (issue 43: PostgreSQL's p99 within 1.5× of SQLite's), in
 * alternating rounds with one binary: each round runs `bench/crawl.ts --api-load --no-api-endpoints` once with
 * the SQLite store and once with a fresh PostgreSQL database (`--store postgres`), so both stores meet the
 * machine in the same state. Reads each run's result file and prints one row per run, the medians, and
 * PostgreSQL's median p99 as a multiple of SQLite's.
 *
 *   bun bench/api-mix-stores.ts [--rounds 3] [--pages 10000] [--binary-path FILE] [--analyze] [-- extra crawl.ts flags]
 *
 * --analyze: the PostgreSQL runs ANALYZE their database after the first crawl (crawl.ts --analyze), as autovacuum
 * would have by then on a server that runs it.
 *
 * Exit 0 when every run completed with exact counts and the mix ran (the ratio is reported, not enforced);
 * 1 otherwise. Writes bench/out/api-mix-stores-<timestamp>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");
const STORES = ["sqlite", "postgres"] as const;
type Store = (typeof STORES)[number];

interface MixRun {
  round: number;
  store: Store;
  exit: number;
  result_file: string | null;
  crawl_wall_s: number | null;
  counts_ok: boolean;
  req_per_s: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  non_2xx: number | null;
  errors: number | null;
  /** The second crawl ran from the mix's start to its end: only then is it "latency under a crawl". */
  crawl_running_throughout: boolean;
  pages_during: string | null;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return Math.round((sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2) * 100) / 100;
}

/** One crawl.ts run; its stdout names the result file. */
async function runOnce(round: number, store: Store, o: { pages: number; binary: string; analyze: boolean; extra: string[] }): Promise<MixRun> {
  const cmd = [
    process.execPath,
    join(import.meta.dir, "crawl.ts"),
    "--binary-path",
    o.binary,
    "--pages",
    String(o.pages),
    "--no-check",
    "--no-linkinator",
    "--no-wget2",
    "--no-capacity",
    "--api-load",
    "--no-api-endpoints",
    "--store",
    store,
    ...(store === "postgres" && o.analyze ? ["--analyze"] : []),
    ...o.extra,
  ];
  console.error(`[api-mix-stores] round ${round}, ${store}: ${cmd.slice(1).join(" ")}`);
  const proc = Bun.spawn({ cmd, cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  // Bounded: crawl.ts bounds each crawl itself; this is the backstop for a hung run.
  const killer = setTimeout(() => proc.kill("SIGKILL"), 30 * 60_000);
  const [out, exit] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(killer);
  const file = /^result: (.+)$/m.exec(out)?.[1] ?? null;
  const empty: MixRun = {
    round,
    store,
    exit,
    result_file: file,
    crawl_wall_s: null,
    counts_ok: false,
    req_per_s: null,
    p50_ms: null,
    p90_ms: null,
    p99_ms: null,
    max_ms: null,
    non_2xx: null,
    errors: null,
    crawl_running_throughout: false,
    pages_during: null,
  };
  if (file === null) return empty;
  const result = JSON.parse(readFileSync(file, "utf8"));
  const service = result.runs.find((r: any) => r.tool === "linkpatrol serve (API)");
  const mix = result.api_load?.mix ?? null;
  return {
    ...empty,
    crawl_wall_s: service?.wall_s ?? null,
    counts_ok: service?.counts_ok === true && service?.broken?.recall === 1 && service?.broken?.false_positives === 0,
    req_per_s: mix?.req_per_s ?? null,
    p50_ms: mix?.p50_ms ?? null,
    p90_ms: mix?.p90_ms ?? null,
    p99_ms: mix?.p99_ms ?? null,
    max_ms: mix?.max_ms ?? null,
    non_2xx: mix?.non_2xx ?? null,
    errors: mix?.errors ?? null,
    crawl_running_throughout: mix?.crawl_running_before === true && mix.crawl_running_after === true,
    pages_during: mix === null ? null : `${mix.pages_before} -> ${mix.pages_after}`,
  };
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      rounds: { type: "string", default: "3" },
      pages: { type: "string", default: "10000" },
      "binary-path": { type: "string", default: join(ROOT, "dist", "linkpatrol") },
      analyze: { type: "boolean", default: false },
    },
  });
  const rounds = Number(values.rounds);
  const pages = Number(values.pages);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20 || !Number.isInteger(pages) || pages < 100) {
    console.error("usage: bun bench/api-mix-stores.ts [--rounds 1-20] [--pages N>=100] [--binary-path FILE] [--analyze] [-- crawl.ts flags]");
    return 2;
  }
  const runs: MixRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const store of STORES) runs.push(await runOnce(round, store, { pages, binary: values["binary-path"], analyze: values.analyze, extra: positionals }));
  }
  const lines = [
    "| round | store | crawl wall | mix req/s | p50 | p90 | p99 | max | non-2xx / errors | crawl pages during the mix | counts exact |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...runs.map(
      (r) =>
        `| ${r.round} | ${r.store} | ${r.crawl_wall_s ?? "?"} s | ${r.req_per_s ?? "?"} | ${r.p50_ms ?? "?"} ms | ${r.p90_ms ?? "?"} ms | ${r.p99_ms ?? "?"} ms | ${r.max_ms ?? "?"} ms | ${r.non_2xx ?? "?"} / ${r.errors ?? "?"} | ${r.pages_during ?? "?"}${r.crawl_running_throughout ? "" : r.pages_during?.endsWith("-> -1") ? " (its detail did not answer within 30 s after)" : " (not throughout)"} | ${r.counts_ok ? "yes" : "NO"} |`,
    ),
  ];
  const summary = Object.fromEntries(
    STORES.map((store) => {
      const of = runs.filter((r) => r.store === store);
      const pick = (f: (r: MixRun) => number | null) => median(of.map(f).filter((v): v is number => v !== null));
      return [
        store,
        { req_per_s: pick((r) => r.req_per_s), p50_ms: pick((r) => r.p50_ms), p99_ms: pick((r) => r.p99_ms), crawl_wall_s: pick((r) => r.crawl_wall_s) },
      ];
    }),
  ) as Record<Store, { req_per_s: number | null; p50_ms: number | null; p99_ms: number | null; crawl_wall_s: number | null }>;
  const ratio = summary.sqlite.p99_ms && summary.postgres.p99_ms ? Math.round((summary.postgres.p99_ms / summary.sqlite.p99_ms) * 100) / 100 : null;
  lines.push("");
  for (const store of STORES) {
    const s = summary[store];
    lines.push(`median ${store}: ${s.req_per_s} req/s, p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms; crawl ${s.crawl_wall_s} s`);
  }
  lines.push(`PostgreSQL p99 / SQLite p99 (medians): ${ratio ?? "n/a"} (target <= 1.5)`);
  for (const line of lines) console.log(line);
  const outDir = join(import.meta.dir, "out");
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `api-mix-stores-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ bench: "api-mix-stores", pages, binary: values["binary-path"], analyze: values.analyze, runs, summary, p99_ratio: ratio }, null, 2)}\n`,
  );
  console.log(`result: ${file}`);
  return runs.every((r) => r.exit === 0 && r.counts_ok && r.p99_ms !== null) ? 0 : 1;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));

/**
 * The real-site comparison (`make compare-real`): installs what is missing (install.ts), builds linkpatrol
 * under /tmp (build.ts), then for each Debian doc tree in sites.ts starts its own nginx on 127.0.0.1
 * (nginx.ts) and crawls it with linkpatrol check, wget2 --spider -r and LinkChecker, one after the other
 * so they never share the CPU (tools/*.ts). Prints the table and the disagreements (report.ts) and writes
 * them, with a JSON of every target's outcome, to bench/real-sites/out/ (gitignored).
 *
 *   bun bench/real-sites/run.ts [--sites a,b | --all-sites] [--timeout S] [--concurrency C] [--binary FILE] [--no-install] [--keep] [--check-flags="FLAGS"] [--tools linkpatrol,wget2,linkchecker] [--no-etag]
 *
 * Without --sites, every site but the large ones (rust-doc: 32k files); --all-sites takes them too.
 * --no-etag: nginx sends no ETag, so wget2 cannot skip pages whose ETag it has seen and GETs every page, as
 * the others do (README, "pages, wget2 lower").
 *
 * Exit 0 when every run ended (whatever it found), 1 when a run failed or timed out, 2 on a set-up error.
 * Every run is bounded (--timeout, default 600 s); only 127.0.0.1 is contacted.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { htmlPagesFetched, logOffset } from "./access-log.ts";
import { buildLinkpatrol } from "./build.ts";
import { ensurePackages } from "./install.ts";
import { cleanUpOnInterrupt } from "./interrupt.ts";
import { startNginx } from "./nginx.ts";
import { disagreementSection, disagreements, resultsTable, type SiteRun } from "./report.ts";
import type { RunContext, ToolResult } from "./result.ts";
import { SITES, TOOL_PACKAGES, type RealSite } from "./sites.ts";
import { runLinkchecker } from "./tools/linkchecker.ts";
import { runLinkpatrol } from "./tools/linkpatrol.ts";
import { runWget2 } from "./tools/wget2.ts";

const OUT = join(import.meta.dir, "out");

interface Flags {
  sites: RealSite[];
  timeoutS: number;
  concurrency: number;
  binary: string | undefined;
  install: boolean;
  keep: boolean;
  /** Flags added to linkpatrol check's own (e.g. "--media --fragments --sitemap"). */
  checkFlags: string[];
  /** The tools run, in this order (LinkChecker takes half an hour on rust-doc). */
  tools: Tool[];
  /** nginx sends ETags (its default); false with --no-etag, so wget2 GETs every page as the others do (README). */
  etag: boolean;
}

const TOOLS = ["linkpatrol", "wget2", "linkchecker"] as const;
type Tool = (typeof TOOLS)[number];

/** A flag that must be a positive integer. */
function positive(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`--${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The command line, checked before anything is installed or built. */
function parseFlags(): Flags {
  const { values } = parseArgs({
    options: {
      sites: { type: "string" },
      "all-sites": { type: "boolean", default: false },
      timeout: { type: "string", default: "600" },
      concurrency: { type: "string", default: "16" },
      binary: { type: "string" },
      "no-install": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "check-flags": { type: "string", default: "" },
      tools: { type: "string", default: TOOLS.join(",") },
      "no-etag": { type: "boolean", default: false },
    },
  });
  const tools = values.tools.split(",");
  const unknownTools = tools.filter((tool) => !(TOOLS as readonly string[]).includes(tool));
  if (unknownTools.length > 0 || tools.length === 0) throw new Error(`--tools takes some of ${TOOLS.join(",")}, got ${JSON.stringify(values.tools)}`);
  let sites = values["all-sites"] ? [...SITES] : SITES.filter((site) => site.large !== true);
  if (values.sites !== undefined) {
    const names = values.sites.split(",");
    const unknown = names.filter((name) => !SITES.some((site) => site.name === name));
    if (unknown.length > 0) throw new Error(`unknown site(s) ${unknown.join(", ")}; known: ${SITES.map((s) => s.name).join(", ")}`);
    sites = SITES.filter((site) => names.includes(site.name));
  }
  return {
    sites,
    timeoutS: positive("timeout", values.timeout),
    concurrency: positive("concurrency", values.concurrency),
    binary: values.binary,
    install: !values["no-install"],
    keep: values.keep,
    checkFlags: values["check-flags"].split(/\s+/).filter((flag) => flag !== ""),
    tools: tools as Tool[],
    etag: !values["no-etag"],
  };
}

async function crawlSite(site: RealSite, binary: string, work: string, flags: Flags): Promise<SiteRun> {
  const dir = join(work, site.name);
  mkdirSync(dir, { recursive: true });
  const nginx = await startNginx(join(dir, "nginx"), site.root, { etag: flags.etag });
  try {
    const results: ToolResult[] = [];
    const runners: [Tool, (ctx: RunContext) => Promise<ToolResult>][] = [
      ["linkpatrol", (ctx) => runLinkpatrol(binary, ctx, flags.checkFlags)],
      ["wget2", runWget2],
      ["linkchecker", runLinkchecker],
    ];
    for (const [name, runner] of runners.filter(([tool]) => flags.tools.includes(tool))) {
      const toolDir = join(dir, name);
      mkdirSync(toolDir, { recursive: true });
      console.error(`${site.name}: ${name} on ${nginx.origin}/ ...`);
      const offset = logOffset(nginx.accessLog);
      const result = await runner({ origin: nginx.origin, dir: toolDir, timeoutS: flags.timeoutS, concurrency: flags.concurrency });
      result.pagesFetched = htmlPagesFetched(nginx.accessLog, offset, nginx.origin).size;
      // wget2 and LinkChecker log each URL once, the start URL as the start, never as a link target, while
      // linkpatrol records it under every page that links it: counted by none, so the counts compare.
      // A start page that fails shows as a failed run with no pages, not in the broken lists.
      result.targets.delete(`${nginx.origin}/`);
      console.error(`${site.name}: ${name} ${result.outcome} in ${result.measured.wall_s} s${result.note ? ` (${result.note})` : ""}`);
      results.push(result);
    }
    return { site, origin: nginx.origin, results };
  } finally {
    await nginx.stop();
  }
}

/**
 * Everything a later look needs, without the port: per site, how nginx served it (with ETags or not: wget2's
 * page count depends on it), and per tool the costs and each target's outcome.
 */
function json(runs: SiteRun[], flags: Flags): unknown {
  return runs.map((run) => {
    const local = (url: string | null) => url?.replace(run.origin, "") ?? null;
    return {
      site: run.site,
      nginx_etag: flags.etag,
      tools: run.results.map((r) => ({
        tool: r.tool,
        version: r.version,
        outcome: r.outcome,
        note: r.note,
        pages_fetched: r.pagesFetched ?? null,
        own_pages: r.ownPages,
        measured: r.measured,
        targets: r.targets.size,
        broken: [...r.targets].filter(([, s]) => s.broken).map(([url, s]) => ({ ...s, url: local(url), source: local(s.source) })),
      })),
      disagreements: disagreements(run).map((d) => ({
        url: local(d.url),
        verdicts: Object.fromEntries(Object.entries(d.verdicts).map(([tool, v]) => [tool, { ...v, source: local(v.source) }])),
      })),
    };
  });
}

/** Which way nginx served the sites: wget2's pages and times are not comparable across the two. */
function etagNote(flags: Flags): string {
  return flags.etag
    ? "nginx sends ETags (mtime + size; wget2 skips pages whose ETag it has seen)."
    : "nginx sends no ETags (--no-etag: wget2 GETs every page).";
}

async function main(): Promise<number> {
  const flags = parseFlags();
  const { sites } = flags;
  if (flags.install) {
    const installed = ensurePackages([...TOOL_PACKAGES, ...sites.map((site) => site.pkg)]);
    if (installed.length > 0) console.error(`installed: ${installed.join(" ")}`);
  }
  const work = mkdtempSync(join(tmpdir(), "linkpatrol-real-sites-"));
  // mkdtemp makes it 0700; LinkChecker run as root drops to `nobody`, which must reach its output dir.
  chmodSync(work, 0o755);
  cleanUpOnInterrupt(work);
  try {
    const binary = flags.binary ?? (await buildLinkpatrol(join(work, "linkpatrol")));
    const runs: SiteRun[] = [];
    for (const site of sites) runs.push(await crawlSite(site, binary, work, flags));

    const tools = runs[0]?.results.map((r) => `${r.tool} ${r.version ?? "?"}`).join(", ") ?? "";
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const text = [
      `## Real-site comparison, ${stamp}`,
      "",
      `Tools: ${tools}. Concurrency ${flags.concurrency}; time limit ${flags.timeoutS} s per run. ${etagNote(flags)}`,
      "",
      resultsTable(runs),
      "",
      "## Broken URLs the tools disagree on",
      "",
      ...runs.map((run) => disagreementSection(run, disagreements(run))),
    ].join("\n");
    console.log(text);
    mkdirSync(OUT, { recursive: true });
    const base = join(OUT, `compare-${stamp.replaceAll(":", "-")}`);
    writeFileSync(`${base}.md`, `${text}\n`);
    writeFileSync(join(OUT, "latest.md"), `${text}\n`);
    writeFileSync(`${base}.json`, `${JSON.stringify(json(runs, flags), null, 2)}\n`);
    console.error(`written: ${base}.md, ${base}.json, ${join(OUT, "latest.md")}${flags.keep ? `; tool output kept in ${work}` : ""}`);
    return runs.every((run) => run.results.every((r) => r.outcome === "ok")) ? 0 : 1;
  } finally {
    if (!flags.keep) rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

/**
 * GNU wget2 in spider mode over the benchmark site, when `wget2` is on PATH (skipped otherwise):
 *   wget2 --no-config --spider -r -l inf --max-threads=C -e robots=on --no-parent --tries=1
 *         --reject-regex ^EXTERNAL_ORIGIN/ --stats-site=csv:FILE -o LOG ROOT
 * Measured as a one-shot process. wget2 reports no "broken links" list, but --stats-site writes one row per
 * request (URL, status, whether it came from a link or a redirect), so broken URLs are reconstructed: a URL
 * found as a link is broken when its answer, following the redirects wget2 itself followed (the Location is
 * taken from the site's table, since the CSV lacks it), ends in a status >= 400. wget2 does not flag a
 * redirect loop (it stops when it meets a URL it has seen): that shows up as a miss.
 *
 * Semantics: wget2 -r follows anchors and page requisites (images, scripts, stylesheets) on the same host, so
 * it is compared with the ground truth of all four kinds, internal only (the external origin, a different
 * port on 127.0.0.1, is rejected by regex: wget2 treats it as the same host). It sends HEAD first, then GET
 * for HTML, and parses CSS for url().
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveHref, type Totals } from "../../test/fixtures/site-model.ts";
import type { SyntheticSite } from "../../test/fixtures/site-synthetic.ts";
import { firstLine, runMeasured, tail } from "../lib/proc.ts";
import { compareBroken, measuredRun, type ToolRun, withRates } from "../lib/tool-run.ts";

export interface Wget2RunOptions {
  site: SyntheticSite;
  truth: Totals;
  truthName: string;
  threads: number;
  timeoutS: number;
  dir: string;
}

export function wget2Path(): string | null {
  return Bun.which("wget2");
}

export function wget2Version(): string | null {
  const path = wget2Path();
  return path === null ? null : firstLine([path, "--version"]);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Row {
  url: string;
  status: number;
  fromLink: boolean;
  method: number;
}

function readStats(path: string): Row[] {
  const rows: Row[] = [];
  const lines = readFileSync(path, "utf8").split("\n");
  // ID,ParentID,URL,Status,Link,Method,Size,SizeDecompressed,TransferTime,ResponseTime,Encoding,Verification
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const f = line.split(",");
    if (f.length < 6) continue;
    // wget2 keeps a link's #fragment in the URL it requests and records.
    rows.push({ url: f[2]!.replace(/#.*$/, ""), status: Number(f[3]), fromLink: f[4] === "1", method: Number(f[5]) });
  }
  return rows;
}

/** The Location of a redirect on the site, resolved; null when `url` is not a redirect. */
function nextHop(site: SyntheticSite, url: string): string | null {
  const location = site.resource(url)?.headers.location;
  return location === undefined ? null : resolveHref(location, url);
}

export async function runWget2(o: Wget2RunOptions): Promise<ToolRun> {
  const path = wget2Path();
  if (path === null) return { tool: "wget2", version: null, status: "skipped", reason: "wget2 not on PATH (Debian: apt-get install wget2)" };
  const version = wget2Version();
  const statsPath = join(o.dir, "wget2-stats.csv");
  const logPath = join(o.dir, "wget2.log");
  const cmd = [
    path,
    "--no-config",
    "--spider",
    "-r",
    "-l",
    "inf",
    `--max-threads=${o.threads}`,
    "-e",
    "robots=on",
    "--no-parent",
    "--tries=1",
    "--reject-regex",
    `^${escapeRe(o.site.origins.external)}/`,
    `--stats-site=csv:${statsPath}`,
    "-o",
    logPath,
    `${o.site.rootUrl}`,
  ];
  const measured = await runMeasured(cmd, { cwd: o.dir, timeoutS: o.timeoutS, stderrPath: join(o.dir, "wget2.stderr.log") });
  const run = measuredRun({ tool: "wget2 --spider -r", version: version, command: cmd, linksMeaning: "distinct URLs checked", timeoutS: o.timeoutS }, measured);
  if (run.status === "timeout") return run;
  // 0: fine; 8: the server answered an error (expected here). Anything else is a failure of wget2 itself.
  const exitOk = measured.exit_code === 0 || measured.exit_code === 8;
  if (!existsSync(statsPath)) return { ...run, status: "failed", reason: `exit ${measured.exit_code}, no stats file: ${tail(logPath, 5)}` };

  const rows = readStats(statsPath);
  const statusOf = new Map<string, number>();
  for (const row of rows) statusOf.set(row.url, row.status);
  const internal = o.site.origins.internal;
  const isInternal = (url: string) => url.startsWith(`${internal}/`);
  const linked = new Set(rows.filter((row) => row.fromLink && isInternal(row.url)).map((row) => row.url));
  const broken: string[] = [];
  let loops = 0;
  for (const url of linked) {
    const seen = new Set<string>();
    let current: string | null = url;
    // Bounded by the distinct URLs in the CSV: each step visits a new one.
    while (current !== null && !seen.has(current)) {
      seen.add(current);
      const status = statusOf.get(current);
      if (status === undefined) break; // not requested: nothing reported
      if (status >= 300 && status < 400) {
        current = nextHop(o.site, current);
        if (current !== null && seen.has(current)) loops++;
        continue;
      }
      if (status >= 400) broken.push(url);
      break;
    }
  }
  // Pages: the URLs the ground truth parses (the site's pages, and on the realistic site its section indexes
  // and search pages) that wget2 fetched with success.
  const truthPages = new Set(o.truth.pages);
  const pageUrls = new Set(rows.filter((row) => row.status === 200 && truthPages.has(row.url)).map((row) => row.url));
  return withRates({
    ...run,
    status: exitOk ? "ok" : "failed",
    reason: exitOk ? undefined : `exit ${measured.exit_code ?? measured.signal}`,
    pages: pageUrls.size,
    links: linked.size,
    broken: compareBroken(broken, o.truth, o.truthName),
    notes: [
      "broken URLs reconstructed from --stats-site (final status of each linked URL through the redirects wget2 followed)",
      "a redirect loop is not reported by wget2 (counted as a miss)",
      "HEAD then GET per HTML page; follows anchors, images, scripts, stylesheets on the host",
    ],
    extra: { requests: rows.length, redirect_loops_unreported: loops, exit_code: measured.exit_code },
  });
}

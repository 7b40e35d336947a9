/**
 * linkinator (bench/node_modules, run under node) over the benchmark site:
 *   node …/linkinator/build/src/cli.js ROOT --recurse --concurrency 100 --format json --timeout MS
 *        [--skip ^EXTERNAL_ORIGIN when the options do not check other hosts]
 * Measured as a one-shot process. Its JSON lists each distinct URL once ({url, status, state, parent}), so
 * broken URLs = the BROKEN entries; pages = the site's generated pages among the URLs that answered 200 (with
 * --recurse linkinator parses every same-origin HTML answer).
 *
 * Semantics that differ from linkpatrol (so it is compared with the ground truth of anchors + images +
 * scripts + stylesheets, which it always checks): it ignores robots.txt (crawls /private/), parses error
 * pages (reports their /trap/ link: a false positive by our contract), checks <link rel=icon>, and counts
 * URLs, not (page, target) pairs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CrawlFlags, Totals } from "../../test/fixtures/site-model.ts";
import type { SyntheticSite } from "../../test/fixtures/site-synthetic.ts";
import { firstLine, runMeasured, tail } from "../lib/proc.ts";
import { compareBroken, measuredRun, type ToolRun, withRates } from "../lib/tool-run.ts";

export const LINKINATOR_CLI = join(import.meta.dir, "..", "node_modules", "linkinator", "build", "src", "cli.js");

export interface LinkinatorRunOptions {
  site: SyntheticSite;
  flags: CrawlFlags;
  truth: Totals;
  truthName: string;
  concurrency: number;
  requestTimeoutS: number;
  timeoutS: number;
  dir: string;
}

export function linkinatorVersion(): string | null {
  return existsSync(LINKINATOR_CLI) ? firstLine(["node", LINKINATOR_CLI, "--version"]) : null;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export async function runLinkinator(o: LinkinatorRunOptions): Promise<ToolRun> {
  const version = linkinatorVersion();
  if (version === null) return { tool: "linkinator", version: null, status: "skipped", reason: `${LINKINATOR_CLI} missing (npm ci --prefix bench)` };
  const outPath = join(o.dir, "linkinator.json");
  const stderrPath = join(o.dir, "linkinator.stderr.log");
  const cmd = [
    "node",
    LINKINATOR_CLI,
    o.site.rootUrl,
    "--recurse",
    "--concurrency",
    String(o.concurrency),
    "--format",
    "json",
    "--timeout",
    String(o.requestTimeoutS * 1000),
    ...(o.flags.follow_external ? [] : ["--skip", `^${escapeRe(o.site.origins.external)}`]),
  ];
  const measured = await runMeasured(cmd, { cwd: o.dir, timeoutS: o.timeoutS, stdoutPath: outPath, stderrPath });
  const run = measuredRun({ tool: "linkinator", version: version, command: cmd, linksMeaning: "distinct URLs checked", timeoutS: o.timeoutS }, measured);
  if (run.status === "timeout") return run;
  // Exit 1 means "broken links found".
  if (measured.exit_code !== 0 && measured.exit_code !== 1) {
    return { ...run, status: "failed", reason: `exit ${measured.exit_code ?? measured.signal}: ${tail(stderrPath, 5)}` };
  }
  let out: { links: { url: string; status: number; state: string; parent?: string }[] };
  try {
    out = JSON.parse(readFileSync(outPath, "utf8"));
  } catch (error) {
    return { ...run, status: "failed", reason: `unreadable output: ${(error as Error).message}` };
  }
  const statusOf = new Map<string, number>();
  for (const link of out.links) if (!statusOf.has(link.url)) statusOf.set(link.url, link.status);
  const parents = new Set<string>();
  for (const link of out.links) if (link.parent !== undefined) parents.add(link.parent);
  const internal = o.site.origins.internal;
  const pages = [...statusOf].filter(
    ([url, status]) => status === 200 && url.startsWith(`${internal}/`) && o.site.pageNumber(url.slice(internal.length)) !== null,
  ).length;
  const broken = out.links.filter((link) => link.state === "BROKEN").map((link) => link.url);
  return withRates({
    ...run,
    pages,
    links: statusOf.size,
    broken: compareBroken(broken, o.truth, o.truthName),
    notes: [
      "ignores robots.txt (crawls /private/)",
      "parses error pages (reports /trap/from-error-page.html)",
      "always checks images, scripts, stylesheets (and <link rel=icon>): compared with that ground truth",
    ],
    extra: { parents: parents.size, entries: out.links.length },
  });
}

/**
 * `linkpatrol check URL --format json` over the benchmark site (the binary, or this Bun on src/main.ts), with
 * the service run's crawler settings as flags (check takes no config file): concurrency 32 (per host 32),
 * --timeout = the service's header/body timeout, --max-pages N + 1000, --allow-private for 127.0.0.1.
 * Measured as a one-shot process (wall, rusage CPU and maxRSS); its JSON report is compared with the ground
 * truth (counts and broken URLs).
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CrawlFlags, Totals } from "../../test/fixtures/site-model.ts";
import { type CheckReportScan, scanCheckReport } from "../lib/check-report-scan.ts";
import { runMeasured, tail } from "../lib/proc.ts";
import { compareBroken, measuredRun, type ToolRun, withRates } from "../lib/tool-run.ts";

export interface CheckRunOptions {
  /** The linkpatrol command: [binary] or [bun, src/main.ts]. */
  command: string[];
  version: string;
  rootUrl: string;
  flags: CrawlFlags;
  truth: Totals;
  truthName: string;
  pages: number;
  concurrency: number;
  timeoutFlagS: number;
  timeoutS: number;
  dir: string;
}

export function checkArgs(o: Pick<CheckRunOptions, "rootUrl" | "flags" | "pages" | "concurrency" | "timeoutFlagS" | "timeoutS">, reportPath: string): string[] {
  const kinds = [
    o.flags.scan_images && "--images",
    o.flags.scan_scripts && "--scripts",
    o.flags.scan_stylesheets && "--stylesheets",
    o.flags.follow_external && "--external",
  ].filter((flag): flag is string => typeof flag === "string");
  return [
    "check",
    o.rootUrl,
    ...kinds,
    "--concurrency",
    String(o.concurrency),
    "--timeout",
    `${o.timeoutFlagS}s`,
    "--max-pages",
    String(o.pages + 1000),
    "--max-duration",
    `${Math.ceil(o.timeoutS) + 60}s`,
    "--allow-private",
    "--format",
    "json",
    "--output",
    reportPath,
  ];
}

export async function runCheck(o: CheckRunOptions): Promise<ToolRun> {
  const reportPath = join(o.dir, "check-report.json");
  const stderrPath = join(o.dir, "check.stderr.log");
  const cmd = [...o.command, ...checkArgs(o, reportPath)];
  const measured = await runMeasured(cmd, { cwd: o.dir, timeoutS: o.timeoutS, stderrPath });
  const run = measuredRun(
    { tool: "linkpatrol check", version: o.version, command: cmd, linksMeaning: "distinct (page, target) pairs (CONTRACT Link)", timeoutS: o.timeoutS },
    measured,
  );
  if (run.status === "timeout") return run;
  // Exit 1 means "broken links found": expected on this site.
  if (measured.exit_code !== 0 && measured.exit_code !== 1) {
    return { ...run, status: "failed", reason: `exit ${measured.exit_code ?? measured.signal}: ${tail(stderrPath, 5)}` };
  }
  let report: CheckReportScan;
  const reportMib = Math.round((statSync(reportPath, { throwIfNoEntry: false })?.size ?? 0) / 104857.6) / 10;
  try {
    report = scanCheckReport(reportPath);
  } catch (error) {
    return { ...run, status: "failed", reason: `unreadable report: ${(error as Error).message}` };
  } finally {
    // Removed rather than left for the next run to overwrite: truncating a 640 MB file is that run's cost.
    rmSync(reportPath, { force: true });
  }
  const { summary: s, brokenUrls } = report;
  const counts = {
    pages_crawled: { got: s.pages_crawled, want: o.truth.pages_crawled },
    total_links: { got: s.total_links, want: o.truth.total_links },
    broken_links: { got: s.broken_links, want: o.truth.broken_links },
    skipped_links: { got: s.skipped_links, want: o.truth.skipped_links },
    report_links: { got: report.links, want: o.truth.total_links },
  };
  const countsOk = Object.values(counts).every((c) => c.got === c.want);
  return withRates({
    ...run,
    status: s.status === "completed" ? "ok" : "failed",
    reason: s.status === "completed" ? undefined : `crawl ${s.status}: ${s.error}`,
    pages: s.pages_crawled,
    links: s.total_links,
    broken: compareBroken(brokenUrls, o.truth, o.truthName),
    counts_ok: countsOk,
    extra: { counts, crawl_duration_s: s.duration_ms / 1000, report_mib: reportMib },
  });
}

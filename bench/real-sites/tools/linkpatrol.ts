/**
 * linkpatrol's compiled binary, `check` with every internal kind on (anchors, images, scripts,
 * stylesheets; no --external, like the other two, which stay on the host):
 *   linkpatrol check ORIGIN/ --allow-private --images --scripts --stylesheets --concurrency C
 *                    --max-pages 200000 --format jsonl --output FILE
 * (C is check's default, 16, unless run.ts is told otherwise; it obeys robots.txt, as by default; the page
 * limit is raised above rust-doc's 32k files.) The report is JSON Lines, read a line at a time: rust-doc's
 * millions of links make a JSON document too long for one string.
 * Own page count: the summary line's `pages_crawled`. Targets: the distinct `url`s of its links; broken: `is_broken`.
 * Unparseable or over-long hrefs, when recorded as broken links, carry the href as written in `url`: they
 * keep that form (normalize.ts returns unparseable input unchanged).
 */
import { join } from "node:path";
import { lines } from "../../lib/check-report-scan.ts";
import { firstLine, runMeasured } from "../../lib/proc.ts";
import { normalizeTarget } from "../normalize.ts";
import { record, type RunContext, type TargetSeen, type ToolResult } from "../result.ts";

interface ReportLink {
  url: string;
  source_url: string;
  status_code: number;
  is_broken: boolean;
  error: string | null;
  kind: string;
}

interface Summary {
  status: string;
  error: string | null;
  pages_crawled: number;
  truncated: boolean;
}

/** Runs `binary check` on the site (with `extraFlags` after the usual ones) and reads its JSON Lines report. */
export async function runLinkpatrol(binary: string, ctx: RunContext, extraFlags: readonly string[] = []): Promise<ToolResult> {
  const reportPath = join(ctx.dir, "linkpatrol.jsonl");
  const cmd = [
    binary,
    "check",
    `${ctx.origin}/`,
    "--allow-private",
    "--images",
    "--scripts",
    "--stylesheets",
    "--concurrency",
    String(ctx.concurrency),
    "--max-pages",
    "200000",
    "--format",
    "jsonl",
    "--output",
    reportPath,
    ...extraFlags,
  ];
  const measured = await runMeasured(cmd, { cwd: ctx.dir, timeoutS: ctx.timeoutS, stderrPath: join(ctx.dir, "linkpatrol.stderr") });
  const base = { tool: "linkpatrol", version: firstLine([binary, "version"]), measured, ownPages: null, targets: new Map<string, TargetSeen>() };
  if (measured.timed_out) return { ...base, outcome: "timeout", note: `killed after ${ctx.timeoutS} s` };
  // 0: nothing broken, 1: something broken (or the crawl failed: the summary says); 2: usage/runtime error.
  let summary: Summary | null = null;
  try {
    for (const line of lines(reportPath)) {
      const item = JSON.parse(line) as ({ type: "link" } & ReportLink) | { type: "summary"; summary: Summary } | { type: "warning" };
      if (item.type === "summary") summary = item.summary;
      else if (item.type === "link") {
        const detail = item.error ?? `HTTP ${item.status_code}`;
        record(base.targets, normalizeTarget(item.url), { broken: item.is_broken, source: item.source_url, detail: `${item.kind} ${detail}` });
      }
    }
  } catch (error) {
    return { ...base, outcome: "failed", note: `exit ${measured.exit_code}, no readable report: ${(error as Error).message}` };
  }
  if (summary === null) return { ...base, outcome: "failed", note: `exit ${measured.exit_code}, the report has no summary line (cut off)` };
  const failed = summary.status !== "completed";
  const note = failed ? `crawl ${summary.status}: ${summary.error}` : summary.truncated ? "truncated at --max-pages" : null;
  return { ...base, outcome: failed ? "failed" : "ok", note, ownPages: summary.pages_crawled };
}

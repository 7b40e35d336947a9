/**
 * linkpatrol's compiled binary, `check` with every internal kind on (anchors, images, scripts,
 * stylesheets; no --external, like the other two, which stay on the host):
 *   linkpatrol check ORIGIN/ --allow-private --images --scripts --stylesheets --concurrency C
 *                    --format json --output FILE
 * (C is check's default, 16, unless run.ts is told otherwise; it obeys robots.txt, as by default.)
 * Own page count: the report's `pages_crawled`. Targets: the distinct `url`s of its links; broken: `is_broken`.
 * Unparseable or over-long hrefs, when recorded as broken links, carry the href as written in `url`: they
 * keep that form (normalize.ts returns unparseable input unchanged).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

interface Report {
  summary: { status: string; error: string | null; pages_crawled: number; truncated: boolean };
  links: ReportLink[];
}

/** Runs `binary check` on the site and reads its JSON report. */
export async function runLinkpatrol(binary: string, ctx: RunContext): Promise<ToolResult> {
  const reportPath = join(ctx.dir, "linkpatrol.json");
  const cmd = [binary, "check", `${ctx.origin}/`, "--allow-private", "--images", "--scripts", "--stylesheets", "--concurrency", String(ctx.concurrency), "--format", "json", "--output", reportPath];
  const measured = await runMeasured(cmd, { cwd: ctx.dir, timeoutS: ctx.timeoutS, stderrPath: join(ctx.dir, "linkpatrol.stderr") });
  const base = { tool: "linkpatrol", version: firstLine([binary, "version"]), measured, ownPages: null, targets: new Map<string, TargetSeen>() };
  if (measured.timed_out) return { ...base, outcome: "timeout", note: `killed after ${ctx.timeoutS} s` };
  // 0: nothing broken, 1: something broken (or the crawl failed: the summary says); 2: usage/runtime error.
  let report: Report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8")) as Report;
  } catch (error) {
    return { ...base, outcome: "failed", note: `exit ${measured.exit_code}, no readable report: ${(error as Error).message}` };
  }
  for (const link of report.links) {
    const detail = link.error ?? `HTTP ${link.status_code}`;
    record(base.targets, normalizeTarget(link.url), { broken: link.is_broken, source: link.source_url, detail: `${link.kind} ${detail}` });
  }
  const { summary } = report;
  const failed = summary.status !== "completed";
  const note = failed ? `crawl ${summary.status}: ${summary.error}` : summary.truncated ? "truncated at --max-pages" : null;
  return { ...base, outcome: failed ? "failed" : "ok", note, ownPages: summary.pages_crawled };
}

/**
 * GNU wget2 in spider mode, recursive, on the site's host only (no -H), never above the start:
 *   wget2 --no-config --spider -r -l inf --no-parent -e robots=on --tries=1 --max-threads=C
 *         --stats-site=csv:FILE -o LOG ORIGIN/
 * robots=on like linkpatrol's default; nginx serves no robots.txt (404), so neither is restricted.
 * wget2 prints no list of broken links; its per-request CSV (ID, ParentID, URL, Status, Link, Method, ...)
 * holds one row per request, so: targets = URLs found as a link on a page
 * (Link=1, ParentID≠0); broken = status ≥ 400 at the end of its redirects (redirects.ts supplies the
 * Locations the CSV lacks). The CSV does not quote fields, so a URL holding a comma is rebuilt from the
 * fixed columns on either side. No own page count: wget2 GETs both the HTML and the CSS it parses, and
 * the CSV has no content type; nginx's count is used (access-log.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { firstLine, runMeasured, tail } from "../../lib/proc.ts";
import { normalizeTarget, onOrigin } from "../normalize.ts";
import { redirectTarget } from "../redirects.ts";
import { record, type RunContext, type TargetSeen, type ToolResult } from "../result.ts";

const COLUMNS_AFTER_URL = 9; // Status ... Verification

interface Row {
  id: number;
  parent: number;
  url: string;
  status: number;
  fromLink: boolean;
}

function readRows(path: string): Row[] {
  const rows: Row[] = [];
  for (const line of readFileSync(path, "utf8").split("\n").slice(1)) {
    const f = line.split(",");
    if (f.length < 3 + COLUMNS_AFTER_URL) continue;
    const after = f.slice(-COLUMNS_AFTER_URL);
    rows.push({
      id: Number(f[0]),
      parent: Number(f[1]),
      url: f.slice(2, -COLUMNS_AFTER_URL).join(","),
      status: Number(after[0]),
      fromLink: after[1] === "1",
    });
  }
  return rows;
}

/** Final status of `url` through the redirects wget2 followed; null when wget2 never requested it. */
async function finalStatus(url: string, statusOf: Map<string, number>): Promise<{ status: number | null; via: string[] }> {
  const via: string[] = [];
  let current = url;
  // Bounded: a chain longer than 10 hops, or a loop, ends the walk like a client's redirect limit would.
  for (let hop = 0; hop <= 10; hop++) {
    const status = statusOf.get(current);
    if (status === undefined || status < 300 || status >= 400) return { status: status ?? null, via };
    const next = await redirectTarget(current);
    if (next === null || via.includes(next)) return { status, via };
    via.push(next);
    current = normalizeTarget(next);
  }
  return { status: null, via };
}

/** Runs wget2 on the site and reconstructs its broken links from the stats CSV. */
export async function runWget2(ctx: RunContext): Promise<ToolResult> {
  const statsPath = join(ctx.dir, "wget2-stats.csv");
  const logPath = join(ctx.dir, "wget2.log");
  const cmd = [
    "wget2",
    "--no-config",
    "--spider",
    "-r",
    "-l",
    "inf",
    "--no-parent",
    "-e",
    "robots=on",
    "--tries=1",
    `--max-threads=${ctx.concurrency}`,
    `--stats-site=csv:${statsPath}`,
    "-o",
    logPath,
    `${ctx.origin}/`,
  ];
  const measured = await runMeasured(cmd, { cwd: ctx.dir, timeoutS: ctx.timeoutS, stderrPath: join(ctx.dir, "wget2.stderr") });
  const base = {
    tool: "wget2",
    version: firstLine(["wget2", "--version"])?.replace(/^GNU Wget2 | - .*$/g, "") ?? null,
    measured,
    ownPages: null,
    targets: new Map<string, TargetSeen>(),
  };
  if (measured.timed_out) return { ...base, outcome: "timeout", note: `killed after ${ctx.timeoutS} s` };
  if (!existsSync(statsPath)) return { ...base, outcome: "failed", note: `exit ${measured.exit_code}, no stats file: ${tail(logPath, 3)}` };

  const rows = readRows(statsPath);
  const urlOf = new Map(rows.map((row) => [row.id, normalizeTarget(row.url)]));
  const statusOf = new Map(rows.map((row) => [normalizeTarget(row.url), row.status]));
  for (const row of rows) {
    const url = normalizeTarget(row.url);
    if (!row.fromLink || row.parent === 0 || !onOrigin(url, ctx.origin)) continue;
    const { status, via } = await finalStatus(url, statusOf);
    const detail = status === null ? "not requested" : `HTTP ${status}${via.length > 0 ? ` via ${via.join(" → ")}` : ""}`;
    record(base.targets, url, { broken: status !== null && (status === 0 || status >= 400), source: urlOf.get(row.parent) ?? null, detail });
  }
  // 0: fine; 8: the server answered an error (a broken link). Anything else is a failure of wget2 itself.
  const exitOk = measured.exit_code === 0 || measured.exit_code === 8;
  return { ...base, outcome: exitOk ? "ok" : "failed", note: exitOk ? null : `exit ${measured.exit_code}`, ownPages: null };
}

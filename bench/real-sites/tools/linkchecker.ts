/**
 * LinkChecker, recursive without depth limit, internal URLs only (its default: no --check-extern), every
 * checked URL written as CSV:
 *   linkchecker -f RC --no-status -t C -r -1 --verbose -o none -F csv/utf-8/FILE ORIGIN/
 * RC sets `maxrequestspersecond` high; with the `LinkChecker` header nginx sends (nginx.ts) that lifts its
 * built-in 0.1-0.6 s pause between two requests to one host. It obeys robots.txt (always). It parses no
 * page over 1 MiB (`maxfilesizeparse`, kept at its default). Run as root it drops to `nobody`, so its
 * directory is made writable for that user.
 * No own page count: it logs each URL once, under the first page that linked it, with no content type.
 * Targets: the `url` column (resolved, before redirects) on the site; broken: `valid` is False.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { firstLine, runMeasured, tail } from "../../lib/proc.ts";
import { parseCsv } from "../csv.ts";
import { normalizeTarget, onOrigin } from "../normalize.ts";
import { record, type RunContext, type TargetSeen, type ToolResult } from "../result.ts";

/** Runs LinkChecker on the site and reads its CSV. */
export async function runLinkchecker(ctx: RunContext): Promise<ToolResult> {
  const csvPath = join(ctx.dir, "linkchecker.csv");
  const rcPath = join(ctx.dir, "linkcheckerrc");
  writeFileSync(rcPath, "[checking]\nmaxrequestspersecond=10000\n");
  chmodSync(ctx.dir, 0o777);
  const cmd = [
    "linkchecker",
    "-f",
    rcPath,
    "--no-status",
    "-t",
    String(ctx.concurrency),
    "-r",
    "-1",
    "--verbose",
    "-o",
    "none",
    "-F",
    `csv/utf-8/${csvPath}`,
    `${ctx.origin}/`,
  ];
  const logPath = join(ctx.dir, "linkchecker.log");
  const measured = await runMeasured(cmd, { cwd: ctx.dir, timeoutS: ctx.timeoutS, stdoutPath: logPath, stderrPath: join(ctx.dir, "linkchecker.stderr") });
  const version = firstLine(["linkchecker", "--version"])?.replace(/^LinkChecker | released.*$/g, "") ?? null;
  const base = { tool: "LinkChecker", version, measured, ownPages: null, targets: new Map<string, TargetSeen>() };
  if (measured.timed_out) return { ...base, outcome: "timeout", note: `killed after ${ctx.timeoutS} s` };
  if (!existsSync(csvPath)) return { ...base, outcome: "failed", note: `exit ${measured.exit_code}, no CSV: ${tail(logPath, 3)}` };

  const [header, ...rows] = parseCsv(readFileSync(csvPath, "utf8"), ";", "#");
  const col = (name: string) => {
    const index = header?.indexOf(name) ?? -1;
    if (index < 0) throw new Error(`LinkChecker CSV has no ${name} column`);
    return index;
  };
  const [urlname, parentname, url, result, valid, info] = ["urlname", "parentname", "url", "result", "valid", "infostring"].map(col) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  for (const row of rows) {
    const parent = row[parentname] ?? "";
    if (parent === "") continue; // the start URL itself
    // `url` is empty when the href did not even parse; the href as written is the target then.
    const target = normalizeTarget(row[url] || row[urlname] || "", parent);
    if (!onOrigin(target, ctx.origin) && (row[url] ?? "") !== "") continue;
    record(base.targets, target, {
      broken: row[valid] === "False",
      source: normalizeTarget(parent),
      detail: [row[result], row[info]].filter(Boolean).join(" "),
    });
  }
  // 0: no broken link; 1: broken links (or warnings as errors); 2: LinkChecker itself failed.
  const exitOk = measured.exit_code === 0 || measured.exit_code === 1;
  return { ...base, outcome: exitOk ? "ok" : "failed", note: exitOk ? null : `exit ${measured.exit_code}` };
}

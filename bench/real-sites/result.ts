/**
 * What every tool's run comes to, whatever its output format: the measurements and, per normalised target
 * URL, whether the tool judged it broken. Keeping the per-URL record (with one page it was found on) is what
 * lets the report name the URLs the tools disagree on and where to look at the HTML.
 */
import type { Measured } from "../lib/proc.ts";

/** One target URL as one tool saw it. */
export interface TargetSeen {
  broken: boolean;
  /** A page the target was found on (the first the tool reported), when its output says. */
  source: string | null;
  /** The tool's own words on the outcome: a status, an error. */
  detail: string;
}

export interface ToolResult {
  tool: string;
  version: string | null;
  /** ok: ran to its end and its output was read; failed: ran but failed; timeout: killed at the time limit. */
  outcome: "ok" | "failed" | "timeout";
  /** Why the outcome is not ok, or a remark on the run (exit code, truncation). */
  note: string | null;
  measured: Measured;
  /** Pages parsed, by the tool's own count when its output has one (see each tool's module). */
  ownPages: number | null;
  /** HTML pages it fetched (GET, 200), from nginx's log (access-log.ts); filled in by the orchestrator. */
  pagesFetched?: number;
  /** Distinct target URLs on the site, normal form (normalize.ts) → outcome. */
  targets: Map<string, TargetSeen>;
}

/** What a tool run needs to know about the site and the harness. */
export interface RunContext {
  /** `http://127.0.0.1:PORT`, no trailing slash; the crawl starts at `${origin}/`. */
  origin: string;
  /** A directory of its own for the tool's output files. */
  dir: string;
  timeoutS: number;
  /** Requests in flight (threads for wget2 and LinkChecker). */
  concurrency: number;
}

/**
 * Records `seen` for `url`, keeping the first source; broken wins over not broken, since two spellings
 * that normalise alike can end differently (a tool that reports either as broken did report the URL).
 */
export function record(targets: Map<string, TargetSeen>, url: string, seen: TargetSeen): void {
  const before = targets.get(url);
  if (before === undefined) targets.set(url, seen);
  else if (seen.broken && !before.broken) targets.set(url, { ...seen, source: before.source ?? seen.source });
}

/** Number of broken targets. */
export function brokenCount(result: ToolResult): number {
  let n = 0;
  for (const seen of result.targets.values()) if (seen.broken) n++;
  return n;
}

/**
 * One crawler's run over the benchmark site, in a shape every runner fills (the service via the API,
 * `linkpatrol check`, linkinator, wget2), and the recall/false-positive comparison of broken URLs.
 */
import type { Totals } from "../../test/fixtures/site-model.ts";
import type { Measured } from "./proc.ts";

export interface BrokenComparison {
  /** Which ground truth the broken URLs were compared with (an option set name). */
  truth: string;
  recall: number;
  hits: number;
  expected: number;
  found: number;
  false_positives: number;
  false_positive_urls: string[];
  missed_urls: string[];
}

export interface ToolRun {
  tool: string;
  version: string | null;
  /** ok: ran to its end; failed: ran but failed (or its output was unreadable); timeout; skipped: not run. */
  status: "ok" | "failed" | "timeout" | "skipped";
  reason?: string;
  command?: string[];
  wall_s?: number;
  /** Pages the tool parsed (its own count, or derived from its output); null when its output does not say. */
  pages?: number | null;
  /** Links as the tool counts them (see `links_meaning`). */
  links?: number | null;
  links_meaning?: string;
  pages_per_s?: number | null;
  links_per_s?: number | null;
  cpu_s?: number | null;
  peak_rss_mib?: number | null;
  measured?: Measured;
  /** Requests the site answered during the run. */
  site_requests?: { main: number; external: number; distinct: number; repeated: number; body_mib: number };
  broken?: BrokenComparison | null;
  /** Counts that must equal the ground truth (linkpatrol runs only). */
  counts_ok?: boolean;
  notes?: string[];
  extra?: Record<string, unknown>;
}

/**
 * A one-shot tool's run as measured, before its output is read: `timeout` when it did not end in time, else
 * `ok` until the caller finds otherwise.
 */
export function measuredRun(
  o: { tool: string; version: string | null; command: string[]; linksMeaning: string; timeoutS: number },
  measured: Measured,
): ToolRun {
  const run: ToolRun = {
    tool: o.tool,
    version: o.version,
    status: "ok",
    command: o.command,
    wall_s: measured.wall_s,
    cpu_s: measured.cpu_s,
    peak_rss_mib: measured.peak_rss_mib,
    measured,
    links_meaning: o.linksMeaning,
  };
  return measured.timed_out ? { ...run, status: "timeout", reason: `no end within ${o.timeoutS} s` } : run;
}

const round4 = (v: number) => Math.round(v * 10_000) / 10_000;

/** Broken target URLs a tool reported, against the ground truth's. */
export function compareBroken(found: Iterable<string>, truth: Totals, truthName: string): BrokenComparison {
  const got = new Set(found);
  const expected = new Set(truth.broken_urls);
  const hits = [...expected].filter((url) => got.has(url)).length;
  const falsePositives = [...got].filter((url) => !expected.has(url)).sort();
  const missed = [...expected].filter((url) => !got.has(url)).sort();
  return {
    truth: truthName,
    recall: round4(expected.size === 0 ? 1 : hits / expected.size),
    hits,
    expected: expected.size,
    found: got.size,
    false_positives: falsePositives.length,
    false_positive_urls: falsePositives.slice(0, 20),
    missed_urls: missed.slice(0, 20),
  };
}

/** Fills the rate fields from wall time. */
export function withRates(run: ToolRun): ToolRun {
  if (run.wall_s !== undefined && run.wall_s > 0) {
    run.pages_per_s = run.pages == null ? null : Math.round((run.pages / run.wall_s) * 10) / 10;
    run.links_per_s = run.links == null ? null : Math.round(run.links / run.wall_s);
  }
  return run;
}

/** A linkpatrol run that ended and matched the ground truth: every count equal, recall 1, no false positive. */
export function isCorrect(run: ToolRun): boolean {
  return run.status === "ok" && run.wall_s !== undefined && run.counts_ok === true && run.broken?.recall === 1 && run.broken.false_positives === 0;
}

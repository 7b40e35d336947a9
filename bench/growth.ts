/**
 * Time growth from a 10,000-page site to the benchmark's N-page site, measured within one run: `rounds`
 * rounds, each crawling the small site and then the large one with the same tool and flags. A round's growth is
 * large wall / small wall / (N / 10,000), 1.00 being linear; the result is the median of the rounds'.
 *
 * Why paired and repeated: the same command's wall time moves by ±10 % on this machine from run to run, and
 * by more between runs minutes apart (bench/README.md), so a ratio of one 50k run to one 10k result from another
 * run read PASS or FAIL by chance. The two crawls of a round run back to back, under the same conditions, and
 * the median keeps one disturbed round from deciding.
 */
import { isCorrect, type ToolRun } from "./lib/tool-run.ts";
import { round } from "./lib/proc.ts";

/** The size growth is measured from. */
export const GROWTH_BASE_PAGES = 10_000;

export interface GrowthRound {
  base_s: number | null;
  large_s: number | null;
}

export interface GrowthResult {
  tool: string;
  base_pages: number;
  pages: number;
  rounds: GrowthRound[];
  base_median_s: number | null;
  large_median_s: number | null;
  /** The median of the rounds' large / base / (pages / base_pages), or null when a run failed. */
  growth: number | null;
  /** Every run completed and matched its site's ground truth. */
  all_correct: boolean;
  /** Why a run did not count, when one did not. */
  problems: string[];
}

/** One crawl of a site, measured and compared with that site's ground truth. */
export type MeasuredCrawl = () => Promise<ToolRun>;

/** A round's large wall / small wall / size ratio, or null when either run failed. */
export function roundGrowth(round: GrowthRound, pages: number): number | null {
  return round.base_s === null || round.large_s === null ? null : round.large_s / round.base_s / (pages / GROWTH_BASE_PAGES);
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `rounds` rounds of `base` then `large` and returns the growth of `tool`'s wall time. */
export async function measureGrowth(o: {
  tool: string;
  pages: number;
  rounds: number;
  base: MeasuredCrawl;
  large: MeasuredCrawl;
  log: (line: string) => void;
}): Promise<GrowthResult> {
  const rounds: GrowthRound[] = [];
  const problems: string[] = [];
  const timed = async (name: string, crawl: MeasuredCrawl): Promise<number | null> => {
    const run = await crawl();
    if (isCorrect(run)) return run.wall_s!;
    problems.push(`${name}: ${run.status}${run.reason ? ` (${run.reason.split("\n")[0]})` : ", results differ from the ground truth"}`);
    return null;
  };
  for (let i = 1; i <= o.rounds; i++) {
    const base_s = await timed(`round ${i}, ${GROWTH_BASE_PAGES} pages`, o.base);
    const large_s = await timed(`round ${i}, ${o.pages} pages`, o.large);
    rounds.push({ base_s, large_s });
    o.log(`growth ${o.tool}, round ${i}/${o.rounds}: ${base_s ?? "failed"} s at ${GROWTH_BASE_PAGES} pages, ${large_s ?? "failed"} s at ${o.pages}`);
  }
  const allCorrect = problems.length === 0;
  const baseMedian = median(rounds.map((r) => r.base_s).filter((v): v is number => v !== null));
  const largeMedian = median(rounds.map((r) => r.large_s).filter((v): v is number => v !== null));
  const growth = allCorrect ? median(rounds.map((r) => roundGrowth(r, o.pages)!)) : null;
  return {
    tool: o.tool,
    base_pages: GROWTH_BASE_PAGES,
    pages: o.pages,
    rounds,
    base_median_s: baseMedian === null ? null : round(baseMedian),
    large_median_s: largeMedian === null ? null : round(largeMedian),
    growth: growth === null ? null : round(growth, 3),
    all_correct: allCorrect,
    problems,
  };
}

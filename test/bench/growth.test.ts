/**
 * The benchmark's time-growth arithmetic (bench/growth.ts): rounds alternate the small and the large site,
 * growth comes from the medians, and a run that failed or differs from its ground truth voids the figure.
 */
import { expect, test } from "bun:test";
import { measureGrowth, median, roundGrowth } from "../../bench/growth.ts";
import type { ToolRun } from "../../bench/lib/tool-run.ts";

const run = (wall_s: number, correct = true): ToolRun => ({
  tool: "linkpatrol check",
  version: "test",
  status: "ok",
  wall_s,
  counts_ok: correct,
  broken: { truth: "default", recall: 1, hits: 1, expected: 1, found: 1, false_positives: 0, false_positive_urls: [], missed_urls: [] },
});

test("median of odd and even counts, none for no values", () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNull();
});

test("a round's growth is its large wall over its small wall per size step, none when a run failed", () => {
  expect(roundGrowth({ base_s: 5, large_s: 25 }, 50_000)).toBe(1);
  expect(roundGrowth({ base_s: 4, large_s: 10 }, 20_000)).toBe(1.25);
  expect(roundGrowth({ base_s: 5, large_s: null }, 50_000)).toBeNull();
});

test("rounds alternate small then large, and growth is the median of the rounds' ratios per size step", async () => {
  const order: string[] = [];
  const small = [5.0, 5.6, 5.2];
  const large = [26.0, 31.0, 25.0];
  const result = await measureGrowth({
    tool: "linkpatrol check",
    pages: 50_000,
    rounds: 3,
    base: async () => (order.push("small"), run(small[order.filter((o) => o === "small").length - 1]!)),
    large: async () => (order.push("large"), run(large[order.filter((o) => o === "large").length - 1]!)),
    log: () => {},
  });
  expect(order).toEqual(["small", "large", "small", "large", "small", "large"]);
  expect(result.rounds).toEqual([
    { base_s: 5.0, large_s: 26.0 },
    { base_s: 5.6, large_s: 31.0 },
    { base_s: 5.2, large_s: 25.0 },
  ]);
  expect(result.base_median_s).toBe(5.2);
  expect(result.large_median_s).toBe(26);
  // Rounds: 26 / 5.0 / 5 = 1.04, 31 / 5.6 / 5 = 1.107, 25 / 5.2 / 5 = 0.962; not 26 / 5.2 / 5 = 1.00 from the medians.
  expect(result.growth).toBe(1.04);
  expect(result.all_correct).toBe(true);
});

test("a run that differs from its ground truth voids the growth and says which", async () => {
  let calls = 0;
  const result = await measureGrowth({
    tool: "linkpatrol check",
    pages: 50_000,
    rounds: 2,
    base: async () => run(5),
    large: async () => run(25, ++calls !== 2),
    log: () => {},
  });
  expect(result.growth).toBeNull();
  expect(result.all_correct).toBe(false);
  expect(result.rounds[1]).toEqual({ base_s: 5, large_s: null });
  expect(result.problems).toEqual(["round 2, 50000 pages: ok, results differ from the ground truth"]);
});

import { describe, expect, test } from "bun:test";
import { collectEvery } from "../../src/core/heap-trim";

describe("collectEvery", () => {
  test("collects on every n-th written batch and never in between", () => {
    const collectedAt: number[] = [];
    let batch = 0;
    const afterBatch = collectEvery(3, () => collectedAt.push(batch));
    for (batch = 1; batch <= 10; batch++) afterBatch();
    expect(collectedAt).toEqual([3, 6, 9]);
  });

  test("a rhythm of one collects after every batch", () => {
    let collections = 0;
    const afterBatch = collectEvery(1, () => collections++);
    for (let i = 0; i < 5; i++) afterBatch();
    expect(collections).toBe(5);
  });
});

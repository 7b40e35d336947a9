import { expect, test } from "bun:test";
import { keysetBatches } from "../../src/store/keyset-batches.ts";

/** A table of ids 1..n read `size` at a time, recording what each read asked for. */
function reader(n: number, size: number) {
  const asked: number[] = [];
  const read = async (afterId: number) => {
    asked.push(afterId);
    return Array.from({ length: Math.max(0, Math.min(size, n - afterId)) }, (_, i) => ({ id: afterId + i + 1 }));
  };
  return { asked, batches: () => Array.fromAsync(keysetBatches(read, size, (row) => row.id)) };
}

test("reads from after the last id of each full batch until a short batch", async () => {
  const { asked, batches } = reader(7, 3);
  expect((await batches()).map((rows) => rows.map((row) => row.id))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  expect(asked).toEqual([0, 3, 6]);
});

test("a row count that is a multiple of the batch size ends on one empty read", async () => {
  const { asked, batches } = reader(6, 3);
  expect((await batches()).map((rows) => rows.length)).toEqual([3, 3, 0]);
  expect(asked).toEqual([0, 3, 6]);
});

test("an empty table is one empty batch", async () => {
  const { asked, batches } = reader(0, 3);
  expect(await batches()).toEqual([[]]);
  expect(asked).toEqual([0]);
});

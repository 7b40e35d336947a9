import { expect, test } from "bun:test";
import { concatBytes } from "../../src/net/body-sink.ts";

test("a lone chunk is the body as it is; several are copied into one array in order", () => {
  const whole = new Uint8Array([1, 2, 3]);
  expect(concatBytes([whole], 3)).toBe(whole);
  const a = new Uint8Array([1, 2]);
  const b = new Uint8Array([3]);
  const joined = concatBytes([a, b], 3);
  expect([...joined]).toEqual([1, 2, 3]);
  a[0] = 9;
  expect(joined[0]).toBe(1);
  expect(concatBytes([], 0).length).toBe(0);
  // A view shorter than its buffer is still a lone chunk: only its own bytes.
  const view = new Uint8Array([5, 6, 7, 8]).subarray(1, 3);
  expect([...concatBytes([view], 2)]).toEqual([6, 7]);
});

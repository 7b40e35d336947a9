import { expect, test } from "bun:test";
import { RecentMap } from "../../src/store/recent-map.ts";

test("a full young generation becomes the old one, and the previous old one is dropped whole", () => {
  const map = new RecentMap<string, number>(2);
  map.set("a", 1);
  map.set("b", 2);
  map.set("c", 3); // young {a, b} ages: old {a, b}, young {c}
  expect(map.size).toBe(3);
  map.set("d", 4);
  map.set("e", 5); // young {c, d} ages: {a, b} are dropped
  expect([map.get("a"), map.get("b")]).toEqual([undefined, undefined]);
  expect([map.get("c"), map.get("d"), map.get("e")]).toEqual([3, 4, 5]);
  expect(map.size).toBeLessThanOrEqual(4);
});

test("an entry used in every generation survives any number of turnovers", () => {
  const map = new RecentMap<string, number>(4);
  map.set("nav", 0);
  for (let i = 0; i < 100; i++) {
    map.set(`page-${i}`, i);
    expect(map.get("nav")).toBe(0);
  }
  expect(map.get("page-0")).toBeUndefined();
  expect(map.get("page-99")).toBe(99);
  expect(map.size).toBeLessThanOrEqual(8);
});

test("a hit in the old generation moves the entry to the young one, once", () => {
  const map = new RecentMap<string, number>(2);
  map.set("a", 1);
  map.set("b", 2);
  map.set("c", 3); // old {a, b}, young {c}
  expect(map.get("a")).toBe(1); // young {c, a}
  expect(map.size).toBe(3);
  map.set("d", 4); // young {c, a} ages: old {c, a}, young {d}; b is dropped
  expect(map.get("b")).toBeUndefined();
  expect(map.get("a")).toBe(1);
});

test("set replaces, delete and clear forget in both generations", () => {
  const map = new RecentMap<string, number>(2);
  map.set("a", 1);
  map.set("b", 2);
  map.set("c", 3);
  map.set("a", 10); // a moves from old to young with its new value
  expect(map.get("a")).toBe(10);
  expect(map.size).toBe(3);
  map.delete("b");
  map.delete("c");
  expect([map.get("b"), map.get("c"), map.size]).toEqual([undefined, undefined, 1]);
  map.clear();
  expect([map.get("a"), map.size]).toEqual([undefined, 0]);
});

test("the generation size must be a positive integer", () => {
  expect(() => new RecentMap(0)).toThrow(RangeError);
  expect(() => new RecentMap(1.5)).toThrow(RangeError);
});

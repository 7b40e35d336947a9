import { expect, test } from "bun:test";
import { TargetTable, type KnownTarget } from "../../src/crawler/target-table.ts";

function target(id: number, overrides: Partial<KnownTarget> = {}): KnownTarget {
  return { id, state: "queued", asPage: false, statusCode: 0, isBroken: false, waitingLinks: 0, lastWaitingLinkId: 0, ...overrides };
}

test("every field of a target reads back as set, and setting again replaces it", () => {
  const known = new TargetTable(10);
  const done = target(2 ** 40 + 7, { state: "done", asPage: true, statusCode: 999, isBroken: true, waitingLinks: 0 });
  known.set("http://a.test/x", done);
  known.set("http://a.test/y", target(3, { waitingLinks: 4_000_000_000, lastWaitingLinkId: 2 ** 50 }));
  expect(known.get("http://a.test/x")).toEqual(done);
  expect(known.get("http://a.test/y")).toEqual(target(3, { waitingLinks: 4_000_000_000, lastWaitingLinkId: 2 ** 50 }));
  known.set("http://a.test/y", target(3, { state: "skipped" }));
  expect(known.get("http://a.test/y")).toEqual(target(3, { state: "skipped" }));
  expect(known.get("http://a.test/z")).toBeUndefined();
  expect(known.size).toBe(2);
});

test("growing the table keeps every entry, found under its own URL only", () => {
  const known = new TargetTable(100_000);
  const n = 50_000; // the table starts at 4,096 slots: this doubles it five times
  for (let i = 0; i < n; i++) known.set(`http://a.test/page-${i}.html`, target(i, { statusCode: i % 600 }));
  expect(known.size).toBe(n);
  expect(known.complete).toBe(true);
  for (let i = 0; i < n; i++) {
    const found = known.get(`http://a.test/page-${i}.html`);
    if (found?.id !== i || found.statusCode !== i % 600) throw new Error(`page-${i}: ${JSON.stringify(found)}`);
  }
  for (let i = n; i < n + 1_000; i++) expect(known.get(`http://a.test/page-${i}.html`)).toBeUndefined();
});

test("past its limit the table refuses new targets, still updates held ones, and says it is incomplete", () => {
  const known = new TargetTable(3);
  for (let i = 0; i < 3; i++) expect(known.set(`u${i}`, target(i))).toBe(true);
  expect(known.set("u3", target(3))).toBe(false);
  expect(known.complete).toBe(false);
  expect(known.get("u3")).toBeUndefined();
  expect(known.set("u1", target(1, { state: "done" }))).toBe(true);
  expect(known.get("u1")?.state).toBe("done");
  known.clear();
  expect(known.size).toBe(0);
  expect(known.complete).toBe(true);
  expect(known.get("u0")).toBeUndefined();
});

test("a limit below one is refused", () => {
  expect(() => new TargetTable(0)).toThrow(RangeError);
  expect(() => new TargetTable(1.5)).toThrow(RangeError);
});

import { describe, expect, test } from "bun:test";
import { collectEvery, collectEveryBytes, Collections, crawlGcRhythm, PAGE_BYTES_PER_YOUNG_COLLECTION, youngThenFull } from "../../src/core/gc-rhythm.ts";

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

describe("youngThenFull", () => {
  test("runs a young collection on each call and a full one instead on every n-th", () => {
    const ran: string[] = [];
    const collect = youngThenFull(
      3,
      () => ran.push("young"),
      () => ran.push("full"),
    );
    for (let i = 0; i < 7; i++) collect();
    expect(ran).toEqual(["young", "young", "full", "young", "young", "full", "young"]);
  });

  test("paced by collectEvery, as the report walk uses it", () => {
    const ran: number[] = [];
    let unit = 0;
    const afterUnit = collectEvery(
      2,
      youngThenFull(
        2,
        () => ran.push(-unit),
        () => ran.push(unit),
      ),
    );
    for (unit = 1; unit <= 8; unit++) afterUnit();
    expect(ran).toEqual([-2, 4, -6, 8]);
  });

  test("a rhythm below one is refused rather than never running a full collection", () => {
    expect(() => youngThenFull(0)).toThrow(RangeError);
    expect(() => youngThenFull(1.5)).toThrow(RangeError);
  });

  test("the default collections run in this runtime", () => {
    const collect = youngThenFull(2);
    expect(() => {
      collect();
      collect();
    }).not.toThrow();
  });
});

describe("collectEveryBytes", () => {
  test("collects once each time the bytes processed since the last collection reach the threshold", () => {
    const collectedAt: number[] = [];
    let total = 0;
    const processed = collectEveryBytes(1000, () => collectedAt.push(total));
    for (const size of [400, 400, 400, 100, 999, 1, 5000, 10]) {
      total += size;
      processed(size);
    }
    expect(collectedAt).toEqual([1200, 2299, 7300]);
  });

  test("refuses a threshold that is not a positive integer", () => {
    expect(() => collectEveryBytes(0)).toThrow(RangeError);
    expect(() => collectEveryBytes(1.5)).toThrow(RangeError);
  });
});

describe("unlessCollectedSince", () => {
  test("takes its turn only when no other rhythm of the job collected since its last one", () => {
    let ran = 0;
    const collections = new Collections();
    const batchTurn = collections.unlessCollectedSince(() => ran++);
    const pageRhythm = youngThenFull(
      2,
      collections.counted(() => {}),
      collections.counted(() => {}),
    ); // counted collectors, which the gate sees
    batchTurn(); // the first turn has nothing to compare with: skipped
    expect(ran).toBe(0);
    batchTurn();
    expect(ran).toBe(1);
    pageRhythm();
    batchTurn(); // a young collection ran in between
    expect(ran).toBe(1);
    batchTurn();
    expect(ran).toBe(2);
    pageRhythm();
    pageRhythm();
    batchTurn(); // a full one did
    expect(ran).toBe(2);
    batchTurn();
    batchTurn();
    expect(ran).toBe(4);
  });

  test("a gated rhythm collects on every turn when alone, and the others see its collections", () => {
    let turns = 0;
    const collections = new Collections();
    const batchTurn = collections.unlessCollectedSince(
      youngThenFull(
        2,
        collections.counted(() => {}),
        collections.counted(() => {}),
      ),
    );
    const counted = collections.unlessCollectedSince(() => turns++);
    batchTurn();
    counted();
    for (let i = 0; i < 4; i++) {
      batchTurn();
      counted(); // the batch rhythm collected before each of these turns
    }
    expect(turns).toBe(0);
  });
});

describe("crawlGcRhythm", () => {
  /** A job's rhythm whose collections are recorded under `name`. */
  const rhythm = (ran: string[], name: string) =>
    crawlGcRhythm(
      () => ran.push(`${name} young`),
      () => ran.push(`${name} full`),
    );

  test("a job's batch turn yields to its own page collections", () => {
    const ran: string[] = [];
    const job = rhythm(ran, "a");
    job.batchWritten(); // nothing to compare with yet
    job.batchWritten();
    expect(ran).toEqual(["a young"]);
    job.pageBytesRead(PAGE_BYTES_PER_YOUNG_COLLECTION);
    job.batchWritten(); // the page rhythm collected since
    expect(ran).toEqual(["a young", "a young"]);
  });

  test("two jobs in one thread keep their own counts: one's page collections never stand in for the other's batch turn", () => {
    const ran: string[] = [];
    const a = rhythm(ran, "a");
    const b = rhythm(ran, "b");
    b.batchWritten();
    for (let i = 0; i < 3; i++) {
      a.pageBytesRead(PAGE_BYTES_PER_YOUNG_COLLECTION);
      b.batchWritten();
    }
    expect(ran).toEqual(["a young", "b young", "a full", "b young", "a young", "b young"]);
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { RateBucketsRepo } from "../../src/store/rate-buckets.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * Shared token buckets answer alike on SQLite and PostgreSQL (issue 43): full at first, a token a take, refilled by
 * elapsed time up to the capacity, never refilled by a take stamped in the past. Two nodes racing on one bucket:
 * test/http/shared-rate-limit.test.ts.
 */

const T0 = Date.UTC(2026, 10, 28, 12);
const PER_MS = 10 / 60_000; // 10 a minute: one token every 6 s

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`rate buckets repo on ${dialect.name}`, () => {
    let store: TestDb;
    let buckets: RateBucketsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      buckets = new RateBucketsRepo(store.db);
    });
    afterEach(() => store.close());

    test("a new bucket is full; each take costs a token; an empty one refuses and keeps its fraction", async () => {
      const takes = [];
      for (let i = 0; i < 11; i++) takes.push(await buckets.take("key:a", 10, PER_MS, T0));
      expect(takes.map((t) => t.allowed)).toEqual([...Array(10).fill(true), false]);
      expect(takes.map((t) => t.tokens)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
      // Another caller has its own bucket.
      expect(await buckets.take("key:b", 10, PER_MS, T0)).toEqual({ allowed: true, tokens: 9 });
      // 3 s later: half a token, not enough; 6 s: one, taken.
      expect(await buckets.take("key:a", 10, PER_MS, T0 + 3_000)).toEqual({ allowed: false, tokens: 0.5 });
      expect(await buckets.take("key:a", 10, PER_MS, T0 + 6_000)).toEqual({ allowed: true, tokens: 0 });
    });

    test("refill stops at the capacity; a take stamped before the last refills nothing and moves no stamp", async () => {
      await buckets.take("key:a", 10, PER_MS, T0);
      expect(await buckets.take("key:a", 10, PER_MS, T0 + 3_600_000)).toEqual({ allowed: true, tokens: 9 });
      for (let i = 0; i < 9; i++) await buckets.take("key:a", 10, PER_MS, T0 + 3_600_000);
      // A node whose clock lags a minute: no refill from the difference, and the stamp stays at the later time.
      expect(await buckets.take("key:a", 10, PER_MS, T0 + 3_540_000)).toEqual({ allowed: false, tokens: 0 });
      expect(await buckets.take("key:a", 10, PER_MS, T0 + 3_606_000)).toEqual({ allowed: true, tokens: 0 });
    });

    test("prune forgets buckets untouched since a time", async () => {
      await buckets.take("key:old", 10, PER_MS, T0);
      await buckets.take("key:new", 10, PER_MS, T0 + 60_000);
      expect(await buckets.prune(T0 + 1)).toBe(1);
      expect(await buckets.count()).toBe(1);
      expect(await buckets.take("key:old", 10, PER_MS, T0 + 60_000)).toEqual({ allowed: true, tokens: 9 });
    });
  });
}

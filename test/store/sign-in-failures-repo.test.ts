import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SignInFailuresRepo } from "../../src/store/sign-in-failures.repo.ts";
import { SharedSignInBackoff } from "../../src/ui/shared-sign-in-backoff.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * Shared sign-in failures count alike on SQLite and PostgreSQL (issue 43): one more a failure, started over after
 * a quiet spell, on the store's clock; the table is pruned by age and by size; the shared backoff earns the
 * appliance's waits from them. Two real nodes: test/cluster/sign-in-backoff-across-nodes.test.ts.
 */

const FORGET = 15 * 60_000;

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`sign-in failures on ${dialect.name}`, () => {
    let store: TestDb;
    let failures: SignInFailuresRepo;
    beforeEach(async () => {
      store = await dialect.open();
      failures = new SignInFailuresRepo(store.db);
    });
    afterEach(() => store.close());

    /** Moves `bucket`'s last failure `ms` into the past, as a quiet spell would. */
    const age = (bucket: string, ms: number) =>
      store.db.run("UPDATE sign_in_failures SET last_failed_at = last_failed_at - CAST($ms AS bigint) WHERE bucket = $bucket", { bucket, ms });

    test("counts one more a failure, per bucket, stamped with the store's clock; starts over after a quiet spell", async () => {
      const before = Date.now();
      expect(await failures.get("addr:192.0.2.1")).toBeUndefined();
      const counts = [];
      for (let i = 0; i < 4; i++) counts.push(await failures.fail("addr:192.0.2.1", FORGET));
      expect(counts).toEqual([1, 2, 3, 4]);
      expect(await failures.fail("key:lp_abcdefgh", FORGET)).toBe(1);
      const read = (await failures.get("addr:192.0.2.1"))!;
      expect(read.failures).toBe(4);
      // The test's host is the database's: both clocks are this machine's.
      expect(read.lastFailedAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(read.now).toBeGreaterThanOrEqual(read.lastFailedAt);
      await age("addr:192.0.2.1", FORGET + 1_000);
      expect(await failures.fail("addr:192.0.2.1", FORGET)).toBe(1);
    });

    test("prune forgets quiet buckets, then all but the most recently failed", async () => {
      for (let i = 0; i < 6; i++) await failures.fail(`addr:198.51.100.${i}`, FORGET);
      await age("addr:198.51.100.0", FORGET + 1_000);
      for (let i = 1; i < 6; i++) await age(`addr:198.51.100.${i}`, (6 - i) * 1_000);
      expect(await failures.prune(FORGET, 2)).toBe(3);
      expect(await failures.count()).toBe(3);
      expect(await failures.get("addr:198.51.100.5")).toBeDefined();
      expect(await failures.get("addr:198.51.100.1")).toBeUndefined();
    });

    test("the shared backoff earns the appliance's waits from the counts, per address and per key prefix", async () => {
      const backoff = new SharedSignInBackoff(failures);
      const waits: number[] = [];
      for (let i = 0; i < 8; i++) {
        await backoff.failed("192.0.2.7", `lp_target00${"x".repeat(32)}`);
        waits.push(await backoff.addressWait("192.0.2.7"));
      }
      expect(waits).toEqual([0, 0, 0, 0, 0, 1, 2, 4]);
      // The prefix counted the same failures; another prefix and another address did not.
      expect(await backoff.keyWait(`lp_target00${"y".repeat(32)}`)).toBe(4);
      expect(await backoff.keyWait(`lp_other000${"y".repeat(32)}`)).toBe(0);
      expect(await backoff.addressWait("192.0.2.8")).toBe(0);
      // A wait runs out on the store's clock.
      await age("addr:192.0.2.7", 4_000);
      expect(await backoff.addressWait("192.0.2.7")).toBe(0);
    });
  });
}

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { LeasesRepo, RELEASED_AT } from "../../src/store/leases.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * Work leases answer alike on SQLite and PostgreSQL (issue 43): a lease is taken when free or expired, each claim
 * raises the fence, the old holder's fence check fails after a takeover, renewals say what is still held.
 * The races between nodes are test/store/cluster-races.test.ts.
 */

const LEASE = 30_000;
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, seconds));

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`leases repo on ${dialect.name}`, () => {
    let store: TestDb;
    let leases: LeasesRepo;
    beforeEach(async () => {
      store = await dialect.open();
      leases = new LeasesRepo(store.db);
    });
    afterEach(() => store.close());

    test("a free lease is taken with fence 1; a held one is refused until it expires, then taken with a higher fence", async () => {
      expect(await leases.claim("crawl", "c1", "node-a", LEASE, at(0))).toBe(1);
      expect(await leases.find("crawl", "c1")).toEqual({ kind: "crawl", key: "c1", holder: "node-a", expires_at: at(30).toISOString(), fence: 1 });
      expect(await leases.claim("crawl", "c1", "node-b", LEASE, at(29))).toBeNull();
      // The holder itself cannot claim what it holds either: one claim, one runner.
      expect(await leases.claim("crawl", "c1", "node-a", LEASE, at(29))).toBeNull();
      // Another kind with the same key is another piece of work.
      expect(await leases.claim("delivery", "c1", "node-b", LEASE, at(29))).toBe(1);

      expect(await leases.holds("crawl", "c1", "node-a", 1)).toBe(true);
      expect(await leases.claim("crawl", "c1", "node-b", LEASE, at(30))).toBe(2);
      expect(await leases.holds("crawl", "c1", "node-a", 1)).toBe(false);
      expect(await leases.holds("crawl", "c1", "node-b", 2)).toBe(true);
      expect(await leases.holds("crawl", "c1", "node-b", 1)).toBe(false);
      // The old holder can neither give back nor finish what it lost.
      expect(await leases.release("crawl", "c1", "node-a", 1)).toBe(false);
      expect(await leases.finish("crawl", "c1", "node-a", 1)).toBe(false);
      expect(await leases.find("crawl", "c1")).toMatchObject({ holder: "node-b", fence: 2 });
    });

    test("renew extends a node's leases and names them; one taken over is not among them", async () => {
      await leases.claim("crawl", "c1", "node-a", LEASE, at(0));
      await leases.claim("crawl", "c2", "node-a", LEASE, at(0));
      await leases.claim("crawl", "c3", "node-b", LEASE, at(0));
      const renewed = await leases.renew("node-a", LEASE, at(10));
      expect(renewed.map((lease) => [lease.key, lease.fence, lease.expires_at]).sort()).toEqual([
        ["c1", 1, at(40).toISOString()],
        ["c2", 1, at(40).toISOString()],
      ]);
      // node-a falls silent past its lease; node-b takes c1.
      expect(await leases.claim("crawl", "c1", "node-b", LEASE, at(40))).toBe(2);
      expect((await leases.renew("node-a", LEASE, at(41))).map((lease) => lease.key)).toEqual(["c2"]);
      expect(await leases.find("crawl", "c3")).toMatchObject({ expires_at: at(30).toISOString() });
    });

    test("expiredOf lists the work of silent nodes of one kind, longest expired first, bounded", async () => {
      await leases.claim("crawl", "c1", "node-a", 10_000, at(0));
      await leases.claim("crawl", "c2", "node-a", 5_000, at(0));
      await leases.claim("crawl", "c3", "node-b", LEASE, at(0));
      await leases.claim("delivery", "d1", "node-a", 1_000, at(0));
      expect((await leases.expiredOf("crawl", at(4), 10)).map((lease) => lease.key)).toEqual([]);
      expect((await leases.expiredOf("crawl", at(10), 10)).map((lease) => lease.key)).toEqual(["c2", "c1"]);
      expect((await leases.expiredOf("crawl", at(10), 1)).map((lease) => lease.key)).toEqual(["c2"]);
      expect(await leases.expiredOf("delivery", at(10), 10)).toEqual([
        { kind: "delivery", key: "d1", holder: "node-a", expires_at: at(1).toISOString(), fence: 1 },
      ]);
    });

    test("released work is taken at once with a higher fence; finished work's lease is gone; releaseAll frees a node's work", async () => {
      await leases.claim("crawl", "c1", "node-a", LEASE, at(0));
      expect(await leases.release("crawl", "c1", "node-a", 1)).toBe(true);
      expect(await leases.find("crawl", "c1")).toMatchObject({ expires_at: RELEASED_AT, fence: 1 });
      expect((await leases.expiredOf("crawl", at(1), 10)).map((lease) => lease.key)).toEqual(["c1"]);
      expect(await leases.claim("crawl", "c1", "node-b", LEASE, at(1))).toBe(2);
      expect(await leases.finish("crawl", "c1", "node-b", 2)).toBe(true);
      expect(await leases.find("crawl", "c1")).toBeUndefined();

      await leases.claim("crawl", "c2", "node-a", LEASE, at(2));
      await leases.claim("delivery", "d1", "node-a", LEASE, at(2));
      await leases.claim("crawl", "c3", "node-b", LEASE, at(2));
      expect(await leases.releaseAll("node-a")).toBe(2);
      expect(await leases.claim("crawl", "c2", "node-c", LEASE, at(3))).toBe(2);
      expect(await leases.claim("delivery", "d1", "node-c", LEASE, at(3))).toBe(2);
      expect(await leases.claim("crawl", "c3", "node-c", LEASE, at(3))).toBeNull();
    });

    test("holds, in the write's transaction, answers for the lease as the transaction sees it", async () => {
      await leases.claim("crawl", "c1", "node-a", LEASE, at(0));
      const wrote = await store.db.transaction(async (tx) => (await new LeasesRepo(tx).holds("crawl", "c1", "node-a", 1)) && "written");
      expect(wrote).toBe("written");
    });
  });
}

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { EndedSessionsRepo } from "../../src/store/ended-sessions.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** Signed-out sessions answer alike on SQLite and PostgreSQL (issue 43): recorded once, found, pruned by expiry. */

const at = (hours: number) => new Date(Date.UTC(2026, 10, 28, hours));

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`ended sessions repo on ${dialect.name}`, () => {
    let store: TestDb;
    let ended: EndedSessionsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      ended = new EndedSessionsRepo(store.db);
    });
    afterEach(() => store.close());

    test("a signed-out nonce is found, another is not; signing out twice keeps one row", async () => {
      await ended.add("nonce-a", at(12));
      await ended.add("nonce-a", at(13));
      expect(await ended.has("nonce-a")).toBe(true);
      expect(await ended.has("nonce-b")).toBe(false);
      expect(await ended.newest(10)).toEqual([{ nonce: "nonce-a", expires_at: at(12).toISOString() }]);
    });

    test("newest lists the latest expiries first, bounded; prune forgets those expired by then", async () => {
      await ended.add("early", at(1));
      await ended.add("middle", at(5));
      await ended.add("late", at(9));
      expect((await ended.newest(2)).map((row) => row.nonce)).toEqual(["late", "middle"]);
      expect(await ended.prune(at(5))).toBe(2);
      expect(await ended.has("middle")).toBe(false);
      expect(await ended.has("late")).toBe(true);
      expect(await ended.prune(at(5))).toBe(0);
    });
  });
}

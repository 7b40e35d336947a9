import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { storeNow } from "../../src/store/store-clock.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** The dialect's spellings run on their own engine: each member used in a statement the engine accepts. */

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`the ${dialect.name} dialect`, () => {
    let store: TestDb;
    beforeEach(async () => {
      store = await dialect.open();
    });
    afterEach(() => store.close());

    test("row locks: a taker's SELECT and a writer's check read the row, in a transaction", async () => {
      await store.db.run("INSERT INTO store_secrets (name, value) VALUES ('a', 'x')");
      const { skipLocked, shareLock } = store.db.dialect;
      expect([skipLocked, shareLock]).toEqual(dialect.name === "postgres" ? [" FOR UPDATE SKIP LOCKED", " FOR SHARE"] : ["", ""]);
      const rows = await store.db.transaction(async (tx) => [
        await tx.get(`SELECT value FROM store_secrets WHERE name = 'a'${skipLocked}`),
        await tx.get(`SELECT value FROM store_secrets WHERE name = 'a'${shareLock}`),
      ]);
      expect(rows).toEqual([{ value: "x" }, { value: "x" }]);
    });

    test("the store's clock: epoch milliseconds from the engine, close to this machine's", async () => {
      const before = Date.now();
      const now = await storeNow(store.db);
      expect(Math.abs(now.getTime() - before)).toBeLessThan(5_000);
      expect(Number.isInteger(now.getTime())).toBe(true);
    });

    test("a JSON list of ids as a subquery", async () => {
      await store.db.run("INSERT INTO store_secrets (name, value) VALUES ('a', 'x'), ('b', 'y'), ('c', 'z')");
      const rows = await store.db.all<{ name: string }>(`SELECT name FROM store_secrets WHERE name IN (${store.db.dialect.textArray("names")}) ORDER BY name`, {
        names: JSON.stringify(["a", "c"]),
      });
      expect(rows.map((row) => row.name)).toEqual(["a", "c"]);
    });
  });
}

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Db } from "../../src/store/db.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * What the crawler's repos ask of the dialect (issue 43) runs on both stores: positional values, the row lock of
 * the crawl fence, the larger of two values, the index hints, a JSON flag, and the next id of a table whose rows
 * a transaction then inserts with consecutive ids.
 */

async function seed(db: Db): Promise<void> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  await db.run(`INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'running', '{"check_fragments":true}', '2026-01-01'),
    ('c2', 'd1', 'completed', '{"check_fragments":false}', '2026-01-02'), ('c3', 'd1', 'completed', '{}', '2026-01-03')`);
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`dialect members on ${dialect.name}`, () => {
    let store: TestDb;
    beforeEach(async () => {
      store = await dialect.open();
      await seed(store.db);
    });
    afterEach(() => store.close());

    test("positional values bind by dialect.param, shared and repeated", async () => {
      const { db } = store;
      const p = db.dialect.param;
      const rows = await db.all<{ id: string }>(`SELECT id FROM crawls WHERE domain_id = ${p(1)} AND id <> ${p(2)} AND id <> ${p(3)} ORDER BY id`, [
        "d1",
        "c2",
        "zz",
      ]);
      expect(rows).toEqual([{ id: "c1" }, { id: "c3" }]);
      const changed = await db.run(`UPDATE crawls SET error = ${p(1)} WHERE id = ${p(2)} OR id = ${p(3)}`, ["x", "c1", "c3"]);
      expect(changed.changes).toBe(2);
      expect(await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM crawls WHERE error = ${p(1)}`, ["x"])).toEqual({ n: 2 });
    });

    test("a crawl's status read with the fence's row lock, the larger of two values, the JSON flag, the index hints", async () => {
      const { db } = store;
      const d = db.dialect;
      const status = await db.transaction((tx) => tx.get<{ status: string }>(`SELECT status FROM crawls WHERE id = $id${d.shareLock}`, { id: "c1" }), {
        immediate: true,
      });
      expect(status).toEqual({ status: "running" });
      expect(await db.get<{ n: number }>(`SELECT ${d.greatest}(truncated, $t) AS n FROM crawls WHERE id = 'c1'`, { t: 1 })).toEqual({ n: 1 });
      const flags = await db.all<{ id: string; f: number }>(`SELECT p.id, ${d.jsonFlag("p.options", "check_fragments")} AS f FROM crawls p ORDER BY p.id`);
      expect(flags).toEqual([
        { id: "c1", f: 1 },
        { id: "c2", f: 0 },
        { id: "c3", f: 0 },
      ]);
      const hinted = await db.all(
        `SELECT b.link_id FROM broken_links b ${d.indexedBy("broken_links_target_idx")} WHERE b.target_id = 1 AND ${d.noIndex("b.crawl_id")} = 'c1'`,
      );
      expect(hinted).toEqual([]);
    });

    test("jsonRows reads a JSON array's rows as typed columns, in order, nulls and text as they are", async () => {
      const { db } = store;
      const rows = [
        ["b", 2, null],
        ["a", 10, 'it\'s "quoted" é'],
        ["", null, ""],
      ];
      const read = await db.all<{ r0: string; r1: number | null; r2: string | null; n: number }>(
        `SELECT r0, r1, r2, n FROM ${db.dialect.jsonRows(1, ["text", "bigint", "text"])} AS rows ORDER BY n`,
        [JSON.stringify(rows)],
      );
      expect(read).toEqual([
        { r0: "b", r1: 2, r2: null, n: 1 },
        { r0: "a", r1: 10, r2: 'it\'s "quoted" é', n: 2 },
        { r0: "", r1: null, r2: "", n: 3 },
      ]);
    });

    test("nextIds names the id the next inserted rows get, consecutively, after rows deleted or inserted before", async () => {
      const { db } = store;
      const insert = (on: Db, n: number) =>
        on.run(
          `INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ${Array.from({ length: n }, () => "('c1', 's', 1, 't', 'anchor')").join(", ")}`,
        );
      const nextId = async (tx: Db) => {
        let row: { links: number } | undefined;
        for (const statement of tx.dialect.nextIds(["links"])) row = await tx.get<{ links: number }>(statement);
        return row!.links;
      };
      await insert(db, 3);
      await db.run("DELETE FROM links WHERE id = (SELECT MAX(id) FROM links)");
      const ids = await db.transaction(
        async (tx) => {
          const first = await nextId(tx);
          await insert(tx, 4);
          const rows = await tx.all<{ id: number }>("SELECT id FROM links ORDER BY id");
          return { first, rows: rows.map((row) => row.id), next: await nextId(tx) };
        },
        { immediate: true },
      );
      expect(ids.rows.slice(-4)).toEqual([ids.first, ids.first + 1, ids.first + 2, ids.first + 3]);
      expect(ids.rows.slice(0, 2)).not.toContain(ids.first);
      expect(ids.next).toBe(ids.first + 4);
    });
  });
}

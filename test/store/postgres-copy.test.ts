import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { migrate } from "../../src/store/migrate.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { copyStoreToPostgres, StoreCopyError } from "../../src/store/postgres/copy.ts";
import { newestSnapshot } from "../../src/store/postgres/snapshot-file.ts";
import { fillEmptyTables } from "../helpers/every-table-row.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * Moving an appliance's history to PostgreSQL (issue 43): the newest upgrade fixture — a store made by the
 * release before this one, with a record in every table and state — upgraded, then copied into an empty
 * PostgreSQL database. Every row of every table arrives with every value, identities continue after the
 * copied ids, and a copy into a database that is not empty, or from a store not yet migrated, is refused.
 */

const FIXTURE = join(import.meta.dir, "../fixtures/upgrade/0015_cluster/store.db");
const { snapshot } = newestSnapshot();

/** A table's rows as comparable text, in one order: bigint comes back from PostgreSQL as a string, blobs as Buffers. */
function normalised(rows: Record<string, unknown>[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(
        Object.entries(row)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, value]) => [key, value instanceof Uint8Array ? Buffer.from(value).toString("hex") : value === null ? null : String(value)]),
      ),
    )
    .sort();
}

describe.skipIf(!HAS_POSTGRES)("linkpatrol's SQLite store copied into PostgreSQL", () => {
  let dir: string;
  let sqlite: Database;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pg: SQL;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lp-copy-"));
    copyFileSync(FIXTURE, join(dir, "store.db"));
    sqlite = new Database(join(dir, "store.db"));
    db = await freshDatabase();
    pg = await connectPostgres(db.url);
  });
  afterAll(async () => {
    sqlite?.close();
    await pg?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a store not migrated to this version is refused, and nothing is written", async () => {
    sqlite.exec("CREATE TABLE IF NOT EXISTS schema_migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)");
    const pending = sqlite.query("SELECT COUNT(*) AS n FROM schema_migrations").get() as { n: number };
    expect(pending.n).toBeGreaterThan(0);
    // The fixture is this version's already: take its newest tag away to make it one migration behind.
    const newest = sqlite.query("SELECT tag FROM schema_migrations ORDER BY tag DESC LIMIT 1").get() as { tag: string };
    sqlite.query("DELETE FROM schema_migrations WHERE tag = ?").run(newest.tag);
    await expect(copyStoreToPostgres(sqlite, pg, snapshot)).rejects.toBeInstanceOf(StoreCopyError);
    expect(await pg`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`).toHaveLength(0);
    sqlite.query("INSERT INTO schema_migrations (tag, applied_at) VALUES (?, ?)").run(newest.tag, new Date().toISOString());
  });

  test("every row of every table arrives with every value, and identities go on after the copied ids", async () => {
    migrate(sqlite);
    fillEmptyTables(sqlite, "appliance");
    const report = await copyStoreToPostgres(sqlite, pg, snapshot);
    expect(report.tables.map((t) => t.name).sort()).toEqual(Object.keys(snapshot.tables).sort());
    let total = 0;
    for (const table of Object.values(snapshot.tables)) {
      const columns = Object.keys(table.columns);
      const list = columns.map((c) => `"${c}"`).join(", ");
      const fromSqlite = sqlite.query<Record<string, unknown>, []>(`SELECT ${list} FROM "${table.name}"`).all();
      const fromPg = (await pg.unsafe(`SELECT ${list} FROM "${table.name}"`)) as Record<string, unknown>[];
      expect({ table: table.name, rows: normalised([...fromPg]) }).toEqual({ table: table.name, rows: normalised(fromSqlite) });
      total += fromSqlite.length;
    }
    // The fixture holds a record in every table and state: a copy that moved nothing would pass the loop above.
    expect(total).toBeGreaterThan(100);
    expect(report.tables.filter((t) => t.rows === 0).map((t) => t.name)).toEqual([]);
    const [maxLink] = (await pg`SELECT MAX(id)::bigint AS id FROM links`) as { id: string }[];
    const linkColumns = Object.keys(snapshot.tables.links!.columns)
      .filter((c) => c !== "id")
      .map((c) => `"${c}"`)
      .join(", ");
    const [next] = (await pg.unsafe(`INSERT INTO links (${linkColumns}) SELECT ${linkColumns} FROM links LIMIT 1 RETURNING id`)) as { id: string }[];
    expect(BigInt(next!.id)).toBeGreaterThan(BigInt(maxLink!.id));
  });

  test("a database that is not empty is refused", async () => {
    await expect(copyStoreToPostgres(sqlite, pg, snapshot)).rejects.toThrow(/is not empty/);
  });
});

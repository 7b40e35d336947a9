import { afterAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { postgresSchemaAt } from "../../src/store/postgres/snapshot-file.ts";
import { POSTGRES_BASE_TAG, POSTGRES_UPGRADES } from "../../src/store/postgres/upgrades/index.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * A PostgreSQL store made by an earlier binary is upgraded in place (issue 43, "migrations are safe when several
 * nodes start at once on an empty or older database"): every migration after the first PostgreSQL schema has
 * PostgreSQL statements, and a store made at that schema and upgraded ends exactly as a new store begins.
 */

const TAGS = MIGRATIONS.map((migration) => migration.tag);
const AFTER_BASE = TAGS.slice(TAGS.indexOf(POSTGRES_BASE_TAG) + 1);

test("every migration after the first PostgreSQL schema has its PostgreSQL statements, in order, and no other", () => {
  expect(TAGS).toContain(POSTGRES_BASE_TAG);
  expect(POSTGRES_UPGRADES.map((upgrade) => upgrade.tag)).toEqual(AFTER_BASE);
  for (const upgrade of POSTGRES_UPGRADES) expect(upgrade.sql.trim()).not.toBe("");
});

/** Tables, columns, indexes, constraints, triggers and functions of the public schema, as comparable lines. */
async function catalog(sql: SQL): Promise<string[]> {
  const rows = (await sql.unsafe(`
    SELECT 'table ' || c.relname || ' ' || c.relpersistence::text AS line FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'
    UNION ALL SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' null=' || is_nullable
      || ' default=' || COALESCE(column_default, '-') || ' identity=' || is_identity
      FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
    UNION ALL SELECT 'function ' || proname || ' ' || pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace`)) as { line: string }[];
  return rows.map((row) => row.line).sort();
}

/** A database as the binary of `tag` made it: that migration's whole schema, its tags recorded. */
async function storeMadeAt(sql: SQL, tag: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`CREATE TABLE schema_migrations (tag text PRIMARY KEY NOT NULL, applied_at text NOT NULL)`;
    await tx.unsafe(postgresSchemaAt(tag));
    for (const done of TAGS.slice(0, TAGS.indexOf(tag) + 1))
      await tx`INSERT INTO schema_migrations (tag, applied_at) VALUES (${done}, '2026-11-28T00:00:00.000Z')`;
  });
}

describe.skipIf(!HAS_POSTGRES)("on a real PostgreSQL server", () => {
  const dropLater: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of dropLater) await drop();
  }, 60_000);
  async function database(): Promise<SQL> {
    const db = await freshDatabase();
    const sql = await connectPostgres(db.url);
    dropLater.push(async () => {
      await sql.close();
      await db.drop();
    });
    return sql;
  }

  test("a store made at the first PostgreSQL schema, upgraded, has exactly a new store's schema, and keeps its rows", async () => {
    const older = await database();
    await storeMadeAt(older, POSTGRES_BASE_TAG);
    await older`INSERT INTO store_identity (id, store_id, created_at) VALUES (1, 'kept-across-the-upgrade', '2026-11-28T00:00:00.000Z')`;
    expect((await migratePostgres(older)).applied).toEqual(AFTER_BASE);
    const fresh = await database();
    await migratePostgres(fresh);
    expect(await catalog(older)).toEqual(await catalog(fresh));
    // The comparison sees a difference as small as one index, or a table left in the write-ahead log.
    await older`DROP INDEX links_crawl_order_idx`;
    expect(await catalog(older)).not.toEqual(await catalog(fresh));
    await older`CREATE INDEX links_crawl_order_idx ON links (crawl_id, id)`;
    await older`ALTER TABLE rate_buckets SET LOGGED`;
    expect(await catalog(older)).not.toEqual(await catalog(fresh));
    await older`ALTER TABLE rate_buckets SET UNLOGGED`;
    expect(await catalog(older)).toEqual(await catalog(fresh));
    // …or a trigger gone (a crawl's links would then outlive it).
    await older`DROP TRIGGER crawls_delete_links ON crawls`;
    expect(await catalog(older)).not.toEqual(await catalog(fresh));
    expect(((await older`SELECT store_id FROM store_identity`) as { store_id: string }[])[0]?.store_id).toBe("kept-across-the-upgrade");
  }, 60_000);

  // A migration this binary does not really ship, so the upgrade path runs whatever the real list holds today.
  const later = [...MIGRATIONS, { tag: "9999_test_upgrade" }];

  test("several nodes upgrading one older store at once: one applies each migration once, the others find nothing to do", async () => {
    const older = await database();
    await storeMadeAt(older, POSTGRES_BASE_TAG);
    const upgrades = [
      ...POSTGRES_UPGRADES,
      { tag: "9999_test_upgrade", sql: "CREATE TABLE upgrade_runs (n bigint NOT NULL); INSERT INTO upgrade_runs (n) VALUES (1);" },
    ];
    const url = ((await older`SELECT current_database() AS name`) as { name: string }[])[0]!.name;
    const nodes = await Promise.all([0, 1, 2].map(() => connectPostgres(`postgres://postgres@127.0.0.1:5432/${url}`)));
    try {
      const reports = await Promise.all(nodes.map((node) => migratePostgres(node, later, upgrades)));
      expect(reports.filter((report) => report.applied.length > 0).map((report) => report.applied)).toEqual([[...AFTER_BASE, "9999_test_upgrade"]]);
      expect((await older`SELECT n FROM upgrade_runs`) as unknown).toEqual([{ n: "1" }]);
    } finally {
      for (const node of nodes) await node.close();
    }
  }, 60_000);

  test("an upgrade that fails leaves the store as it was, and says which migration it lacks", async () => {
    const older = await database();
    await storeMadeAt(older, POSTGRES_BASE_TAG);
    const failing = [...POSTGRES_UPGRADES, { tag: "9999_test_upgrade", sql: "CREATE TABLE half_done (n bigint); SELECT 1 / 0;" }];
    expect(migratePostgres(older, later, failing)).rejects.toThrow(/division by zero/);
    expect((await older`SELECT to_regclass('half_done') AS t`) as unknown).toEqual([{ t: null }]);
    expect(((await older`SELECT count(*)::int AS n FROM schema_migrations`) as { n: number }[])[0]!.n).toBe(TAGS.indexOf(POSTGRES_BASE_TAG) + 1);
    expect(migratePostgres(older, later, POSTGRES_UPGRADES)).rejects.toThrow(
      `this PostgreSQL store is at ${POSTGRES_BASE_TAG}; this binary has no PostgreSQL statements for 9999_test_upgrade to upgrade it`,
    );
  }, 60_000);
});

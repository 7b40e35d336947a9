import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { SKIPPED } from "../../src/store/postgres/copy-down.ts";
import { storeTables } from "../../src/store/postgres/store-tables.ts";
import { snapshotStore } from "../fixtures/upgrade/snapshot.ts";
import { readAll, waitForCrawl } from "../helpers/crawls.ts";
import { runCli } from "../helpers/cli.ts";
import { fillEmptyTables } from "../helpers/every-table-row.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";
import { startTestService } from "../helpers/service.ts";

/**
 * Moving back down (issue 43): `linkpatrol store copy --from postgres://…` as an operator runs it. The newest upgrade
 * fixture (a record in every table and state), with a row added to every table it leaves empty, goes up with
 * `store copy --to` and back down into a new file: every table the appliance keeps holds the same rows, the cluster's
 * own tables are left behind, and no id can be handed out twice. A plain fixture moved the same way then serves:
 * the service on the copy shows what the fixture showed, a crawl's links among it. A file already at the path, a
 * URL that is not PostgreSQL, a store of a newer schema and a node still beating are refused, and leave no file.
 */

const FIXTURE_DIR = join(import.meta.dir, "../fixtures/upgrade", MIGRATIONS.at(-1)!.tag);
const NEWEST = MIGRATIONS.at(-1)!.tag;
const dir = mkdtempSync(join(tmpdir(), "linkpatrol-copy-down-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new directory under the test's, with the path of a store in it. */
function storeIn(name: string): string {
  mkdirSync(join(dir, name));
  return join(dir, name, "store.db");
}

/** A table's rows as comparable text, in one order; blobs as hex. */
function rowsOf(sqlite: Database, table: string): string[] {
  return sqlite
    .query<Record<string, unknown>, []>(`SELECT * FROM "${table}"`)
    .all()
    .map((row) => JSON.stringify(Object.entries(row).map(([key, value]) => [key, value instanceof Uint8Array ? Buffer.from(value).toString("hex") : value])))
    .sort();
}

const sequences = (sqlite: Database): Record<string, number> =>
  Object.fromEntries(
    sqlite
      .query<{ name: string; seq: number }, []>("SELECT name, seq FROM sqlite_sequence")
      .all()
      .map((row) => [row.name, row.seq]),
  );

/** Copies the store at `from` up into a fresh database; the database. */
async function upToPostgres(from: string): Promise<Awaited<ReturnType<typeof freshDatabase>>> {
  const database = await freshDatabase();
  const up = await runCli(["store", "copy", "--to", database.url], { env: { LINKPATROL_STORAGE_PATH: from } });
  if (up.exitCode !== 0) throw new Error(`store copy --to failed: ${up.stderr}`);
  return database;
}

const down = (url: string, path: string) => runCli(["store", "copy", "--from", url], { env: { LINKPATROL_STORAGE_PATH: path } });

test("usage: both directions at once, another scheme", async () => {
  const env = { LINKPATROL_STORAGE_PATH: join(dir, "none.db") };
  const both = await runCli(["store", "copy", "--to", "postgres://h/a", "--from", "postgres://h/b"], { env });
  expect(both.exitCode).toBe(2);
  expect(both.stderr).toContain("--to or --from, not both");
  const sqlite = await runCli(["store", "copy", "--from", "sqlite:///tmp/x.db"], { env });
  expect(sqlite.exitCode).toBe(2);
  expect(sqlite.stderr).toContain("--from must be a postgres://");
  const help = await runCli(["store", "--help"], { env });
  expect(help.stdout).toContain("store copy --from postgres://");
  for (const table of Object.keys(SKIPPED)) expect(help.stdout).toContain(table);
  expect(existsSync(join(dir, "none.db"))).toBe(false);
}, 20_000);

describe.skipIf(!HAS_POSTGRES)("SQLite → PostgreSQL → SQLite", () => {
  let source: string;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    source = storeIn("source");
    copyFileSync(join(FIXTURE_DIR, "store.db"), source);
    const sqlite = new Database(source);
    try {
      // Every table gets a row; the cluster's own state is from a node long gone: left behind.
      fillEmptyTables(sqlite, "node-a");
      // The newest attempt deleted: its id was handed out once and must not be again.
      sqlite.exec("DELETE FROM webhook_attempts WHERE id = (SELECT MAX(id) FROM webhook_attempts)");
    } finally {
      sqlite.close();
    }
    database = await upToPostgres(source);
  }, 30_000);
  afterAll(() => database?.drop());

  test("every table the appliance keeps comes back with the same rows; the cluster's own are left behind; ids go on", async () => {
    const target = storeIn("down");
    const copied = await down(database.url, target);
    expect(copied.stderr).toBe("");
    expect(copied.exitCode).toBe(0);
    expect(copied.stdout).toContain(`into ${target}; row counts verified in SQLite:`);
    expect(copied.stdout).toMatch(/\n {2}links +\d+\n/);
    expect(copied.stdout).toContain("left behind");
    expect(copied.stdout).toContain("remove storage.url");
    // The fixture keeps one crawl running.
    expect(copied.stdout).toContain("1 crawl(s) were pending or running");
    expect(readdirSync(join(dir, "down")).sort()).toEqual(["store.db", "store.db.lock"]);

    const before = new Database(source, { readonly: true });
    const after = new Database(target, { readonly: true });
    try {
      const tables = Object.keys(storeTables(before).tables).sort();
      expect(Object.keys(storeTables(after).tables).sort()).toEqual(tables);
      let total = 0;
      for (const table of tables) {
        const expected = table in SKIPPED ? [] : rowsOf(before, table);
        expect({ table, rows: rowsOf(after, table) }).toEqual({ table, rows: expected });
        total += expected.length;
        if (!(table in SKIPPED)) expect(expected.length, table).toBeGreaterThan(0);
      }
      expect(total).toBeGreaterThan(100);
      expect(after.query("SELECT tag FROM schema_migrations ORDER BY tag").all()).toEqual(MIGRATIONS.map((m) => ({ tag: m.tag })));
      // Every sequence at least where the appliance's was (the deleted attempt's id included).
      const [seqBefore, seqAfter] = [sequences(before), sequences(after)];
      for (const [table, seq] of Object.entries(seqBefore)) expect(seqAfter[table], table).toBeGreaterThanOrEqual(seq);
      expect(after.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      expect(after.query("PRAGMA foreign_key_check").all()).toEqual([]);
    } finally {
      before.close();
      after.close();
    }
    const writable = new Database(target);
    try {
      const { seq } = writable.query("SELECT seq FROM sqlite_sequence WHERE name = 'webhook_attempts'").get() as { seq: number };
      const columns = (writable.query("PRAGMA table_info(webhook_attempts)").all() as { name: string }[]).map((c) => `"${c.name}"`).filter((c) => c !== '"id"');
      const next = writable
        .query(`INSERT INTO webhook_attempts (${columns.join(", ")}) SELECT ${columns.join(", ")} FROM webhook_attempts LIMIT 1 RETURNING id`)
        .get() as {
        id: number;
      };
      expect(next.id).toBeGreaterThan(seq);
    } finally {
      writable.close();
    }
  }, 30_000);

  test("refused, leaving no file: a store already at the path, a newer or an older schema, a node still beating, an unreachable server", async () => {
    const existing = storeIn("existing");
    copyFileSync(join(FIXTURE_DIR, "store.db"), existing);
    const before = readFileSync(existing);
    const there = await down(database.url, existing);
    expect(there.exitCode).toBe(2);
    expect(there.stderr).toContain(`there is already a store at ${existing}`);
    expect(there.stderr).toContain("never overwrites");
    expect(readFileSync(existing).equals(before)).toBe(true);

    const target = storeIn("refused");
    const sql = new SQL(database.url, { max: 1 });
    try {
      await sql`INSERT INTO schema_migrations (tag, applied_at) VALUES ('9999_from_the_future', '2027-01-01T00:00:00.000Z')`;
      const newer = await down(database.url, target);
      expect(newer.exitCode).toBe(2);
      expect(newer.stderr).toContain(`the PostgreSQL store is at schema 9999_from_the_future, newer than this linkpatrol's ${NEWEST}`);
      await sql`DELETE FROM schema_migrations WHERE tag = '9999_from_the_future'`;
      await sql`DELETE FROM schema_migrations WHERE tag = ${NEWEST}`;
      const older = await down(database.url, target);
      expect(older.exitCode).toBe(2);
      expect(older.stderr).toContain(`older than this linkpatrol's ${NEWEST} (missing: ${NEWEST})`);
      await sql`INSERT INTO schema_migrations (tag, applied_at) VALUES (${NEWEST}, '2026-11-28T00:00:00.000Z')`;

      await sql`INSERT INTO cluster_nodes (name, instance, version, started_at, heartbeat_at)
        VALUES ('node-b', 'i-2', '1.0.0', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
      const alive = await down(database.url, target);
      expect(alive.exitCode).toBe(2);
      expect(alive.stderr).toMatch(/node-b \(last heartbeat \d+ s ago\) is still running on the PostgreSQL store; stop every node first/);
      await sql`DELETE FROM cluster_nodes WHERE name = 'node-b'`;
    } finally {
      await sql.close();
    }
    const closed = await down("postgres://postgres:s3cret-pw@127.0.0.1:1/none", target);
    expect(closed.exitCode).toBe(2);
    expect(closed.stderr).toContain("cannot open the PostgreSQL store postgres://postgres:***@127.0.0.1:1/none");
    expect(closed.stderr).not.toContain("s3cret-pw");
    // Nothing made at the path, nor the copy's own file beside it.
    expect(readdirSync(join(dir, "refused"))).toEqual(["store.db.lock"]);
  }, 30_000);
});

describe.skipIf(!HAS_POSTGRES)("the service on a store moved back down", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let target: string;
  beforeAll(async () => {
    const source = storeIn("plain");
    copyFileSync(join(FIXTURE_DIR, "store.db"), source);
    database = await upToPostgres(source);
    target = storeIn("served");
    const copied = await down(database.url, target);
    if (copied.exitCode !== 0) throw new Error(`store copy --from failed: ${copied.stderr}`);
  }, 30_000);
  afterAll(() => database?.drop());

  test("shows what the appliance showed: keys, domains, crawls and their links, webhooks and deliveries", async () => {
    const expected = JSON.parse(readFileSync(join(FIXTURE_DIR, "snapshot.json"), "utf8"));
    const secrets: Record<string, string> = JSON.parse(readFileSync(join(FIXTURE_DIR, "secrets.json"), "utf8"));
    const svc = await startTestService({ storage: { path: target, retention: { max_age: null, keep_last: null } } }, { startCrawls: false });
    try {
      const completed = (await readAll(svc, "/crawls")).find((crawl) => crawl.status === "completed" && crawl.total_links > 0);
      const links = await svc.call("GET", `/crawls/${completed.id}/links?limit=100`);
      expect(links.status).toBe(200);
      expect(links.json.data).toHaveLength(completed.total_links);
      expect(links.json.data).toEqual(expected.crawlDetails[completed.id].links);
      expect(await snapshotStore(svc, Object.keys(secrets))).toMatchObject(expected);
    } finally {
      await svc.stop();
    }
  }, 30_000);

  test("a crawl that was running on the cluster is taken up by the service and ends", async () => {
    const svc = await startTestService({ storage: { path: target, retention: { max_age: null, keep_last: null } } });
    try {
      const running = (await readAll(svc, "/crawls")).find((crawl) => crawl.status === "running");
      expect(running).toBeDefined();
      // Its waiting target (the fixture generator's site) is gone: refused, so the crawl ends with what it found.
      const ended = await waitForCrawl(svc, running.id, 30_000);
      expect(["completed", "failed"]).toContain(ended.status);
      expect(ended.total_links).toBeGreaterThanOrEqual(running.total_links);
    } finally {
      await svc.stop();
    }
  }, 40_000);
});

describe.skipIf(!HAS_POSTGRES)("a store born on PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  afterAll(() => database?.drop());

  test("moves down with its rows and gets an id of its own (PostgreSQL's schema has no id row)", async () => {
    database = await freshDatabase();
    const setup = await connectPostgres(database.url, { max: 1 });
    try {
      await migratePostgres(setup);
    } finally {
      await setup.close();
    }
    const key = await runCli(["keys", "create", "--name", "born-on-postgres"], { env: { LINKPATROL_STORAGE_URL: database.url } });
    expect(key.exitCode).toBe(0);
    const target = storeIn("born");
    const copied = await down(database.url, target);
    expect(copied.stderr).toBe("");
    expect(copied.stdout).toMatch(/\n {2}api_keys +1\n/);
    expect(copied.stdout).toMatch(/\n {2}store_identity +1\n/);
    const sqlite = new Database(target, { readonly: true });
    try {
      expect(sqlite.query("SELECT name FROM api_keys").all()).toEqual([{ name: "born-on-postgres" }]);
      expect((sqlite.query("SELECT store_id FROM store_identity").get() as { store_id: string }).store_id).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      sqlite.close();
    }
    // The appliance's own commands read it.
    const listed = await runCli(["keys", "list"], { env: { LINKPATROL_STORAGE_PATH: target } });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain("born-on-postgres");
  }, 30_000);
});

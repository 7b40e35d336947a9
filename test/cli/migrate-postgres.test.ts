import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { runCli } from "../helpers/cli.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * `linkpatrol migrate` migrates the store the config names (issue 43, "the CLI works on both stores"): with
 * storage.url the PostgreSQL database, never a SQLite file beside it.
 */

describe.skipIf(!HAS_POSTGRES)("migrate with storage.url", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let dir: string;
  beforeAll(async () => {
    db = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), "linkpatrol-migrate-pg-"));
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test("applies the schema to the database, then finds it up to date; no SQLite store is made", async () => {
    const env = { LINKPATROL_STORAGE_URL: db.url };
    const first = await runCli(["migrate"], { env, cwd: dir, timeoutMs: 30_000 });
    expect(first.stderr).toBe("");
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain(`migrated ${db.url} (storage.url)`);
    expect(first.stdout).toContain(`applied: ${MIGRATIONS.map((m) => m.tag).join(", ")}`);
    const second = await runCli(["migrate"], { env, cwd: dir, timeoutMs: 30_000 });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain("already up to date");
    expect(second.stdout).toContain(`schema version: ${MIGRATIONS.at(-1)!.tag}`);
    expect(existsSync(join(dir, "data"))).toBe(false);
    const sql = new SQL(db.url, { max: 1 });
    try {
      expect(((await sql`SELECT count(*)::int AS n FROM schema_migrations`) as { n: number }[])[0]!.n).toBe(MIGRATIONS.length);
    } finally {
      await sql.close();
    }
  }, 60_000);

  test("--new-store is refused for a PostgreSQL store, and an unreachable one is named without its password", async () => {
    const refused = await runCli(["migrate", "--new-store"], { env: { LINKPATROL_STORAGE_URL: db.url }, cwd: dir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--new-store is for a SQLite store");
    const unreachable = await runCli(["migrate"], { env: { LINKPATROL_STORAGE_URL: "postgres://lp:s3cret-pw@127.0.0.1:1/x" }, cwd: dir, timeoutMs: 30_000 });
    expect(unreachable.exitCode).not.toBe(0);
    expect(unreachable.stderr).toContain("127.0.0.1:1");
    expect(unreachable.stderr).not.toContain("s3cret-pw");
  }, 60_000);
});

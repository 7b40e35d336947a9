import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { acquireServiceLock } from "../../src/store/service-lock.ts";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * `linkpatrol store copy --to postgres://…` as an operator runs it (issue 43): a real process copies a store made by
 * the CLI into an empty PostgreSQL database, prints each table's verified count and the setting to change, never
 * the password; a database that is not empty, a running service and a wrong URL are refused with exit 2.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-store-copy-"));
const storePath = join(dir, "lp.db");
const env = { LINKPATROL_STORAGE_PATH: storePath };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `url` with a password the server (trust auth) never asks for: it must not be printed. */
const withPassword = (url: string): string => {
  const parsed = new URL(url);
  parsed.username = "postgres";
  parsed.password = "s3cret-pw";
  return parsed.href;
};

test("usage: no --to, another scheme, an unknown action, a store that does not exist", async () => {
  const noTo = await runCli(["store", "copy"], { env });
  expect(noTo.exitCode).toBe(2);
  expect(noTo.stderr).toContain("--to postgres://");
  const sqlite = await runCli(["store", "copy", "--to", "sqlite:///tmp/x.db"], { env });
  expect(sqlite.exitCode).toBe(2);
  expect(sqlite.stderr).toContain("--to must be a postgres://");
  expect((await runCli(["store", "move", "--to", "postgres://h/db"], { env })).stderr).toContain("unknown store command: move");
  const missing = await runCli(["store", "copy", "--to", "postgres://h/db"], { env: { LINKPATROL_STORAGE_PATH: join(dir, "none.db") } });
  expect(missing.exitCode).toBe(2);
  expect(missing.stderr).toContain("there is no store at");
  const help = await runCli(["store", "--help"], { env });
  expect(help.exitCode).toBe(0);
  expect(help.stdout).toContain("store copy --to postgres://");
}, 20_000);

describe.skipIf(!HAS_POSTGRES)("onto a real PostgreSQL server", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    await setUpStore([], env);
    const key = await runCli(["keys", "create", "--name", "copied"], { env });
    expect(key.exitCode).toBe(0);
    const domain = await runCli(["domains", "add", "copy.example", "--verified"], { env });
    expect(domain.exitCode).toBe(0);
    database = await freshDatabase();
  }, 20_000);
  afterAll(() => database?.drop());

  test("copies every table, prints the verified counts and storage.url without the password; a second copy is refused", async () => {
    const url = withPassword(database.url);
    const copied = await runCli(["store", "copy", "--to", url], { env });
    expect(copied.stderr).toBe("");
    expect(copied.exitCode).toBe(0);
    const shown = url.replace("s3cret-pw", "***");
    expect(copied.stdout).toContain(`copied ${storePath} into ${shown}; row counts verified in PostgreSQL:`);
    expect(copied.stdout).toMatch(/\n {2}api_keys +1\n/);
    expect(copied.stdout).toMatch(/\n {2}domains +1\n/);
    expect(copied.stdout).toMatch(/\n {2}work_leases +0\n/);
    expect(copied.stdout).toContain(`storage:\n    url: ${shown}`);
    expect(copied.stdout).toContain("LINKPATROL_STORAGE_URL");
    expect(copied.stdout).not.toContain("s3cret-pw");

    const sql = new SQL(database.url, { max: 1 });
    try {
      expect([...(await sql`SELECT name FROM domains`)]).toEqual([{ name: "copy.example" }]);
      expect([...(await sql`SELECT name FROM api_keys`)]).toEqual([{ name: "copied" }]);
    } finally {
      await sql.close();
    }

    const again = await runCli(["store", "copy", "--to", url], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("the PostgreSQL database is not empty");
    expect(again.stderr + again.stdout).not.toContain("s3cret-pw");
  }, 30_000);

  test("refused while the service holds the store, naming it; an unreachable server is named without the password", async () => {
    const lock = acquireServiceLock(storePath, "serve");
    try {
      const refused = await runCli(["store", "copy", "--to", withPassword(database.url)], { env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain("stop the service before copying the store");
    } finally {
      lock.release();
    }
    const closed = await runCli(["store", "copy", "--to", "postgres://postgres:s3cret-pw@127.0.0.1:1/none"], { env });
    expect(closed.exitCode).toBe(2);
    expect(closed.stderr).toContain("cannot open the PostgreSQL store postgres://postgres:***@127.0.0.1:1/none");
    expect(closed.stderr).not.toContain("s3cret-pw");
  }, 30_000);
});

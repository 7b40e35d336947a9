import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { postgresBackupRefusal } from "../../src/cli/backup.ts";
import { isPostgresUrlShape } from "../../src/config/network-values.ts";

/**
 * `linkpatrol backup` on a PostgreSQL store (issue 43) copies nothing and names pg_dump, without the password.
 */

test("a PostgreSQL URL is told from a SQLite path by its scheme", () => {
  for (const url of ["postgres://u@h/db", "postgresql://u:pw@h:5433/db?sslmode=require", " POSTGRES://h/db"]) expect(isPostgresUrlShape(url)).toBe(true);
  for (const value of ["./data/linkpatrol.db", "/var/lib/linkpatrol/postgres.db", "postgres", "sqlite://x", "postgres:///db", ""])
    expect(isPostgresUrlShape(value)).toBe(false);
});

test("backup names pg_dump for a PostgreSQL store, with the URL shown redacted and given to pg_dump without its password", () => {
  expect(postgresBackupRefusal(null)).toBeNull();
  const message = postgresBackupRefusal("postgres://lp:s3cret@db.internal:5432/linkpatrol")!;
  expect(message).toContain("the store is the PostgreSQL database postgres://lp:***@db.internal:5432/linkpatrol (storage.url)");
  expect(message).toContain("pg_dump --format=custom --file=linkpatrol.dump 'postgres://lp@db.internal:5432/linkpatrol'");
  expect(message).toContain("pg_restore");
  expect(message).not.toContain("s3cret");
});

test("the CLI: backup with LINKPATROL_STORAGE_URL set exits 2 naming pg_dump, writes no file, never prints the password", async () => {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-backup-pg-"));
  try {
    const target = join(dir, "out.db");
    const res = await runCli(["backup", target], { env: { LINKPATROL_STORAGE_URL: "postgres://u:pw-9f3@h.internal/db" }, cwd: dir });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("linkpatrol: the store is the PostgreSQL database postgres://u:***@h.internal/db (storage.url)");
    expect(res.stderr).toContain("pg_dump --format=custom --file=linkpatrol.dump 'postgres://u@h.internal/db'");
    expect(res.stderr + res.stdout).not.toContain("pw-9f3");
    expect(existsSync(target)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { expect, test } from "bun:test";
import { postgresBackupRefusal } from "../../src/cli/backup.ts";
import { isPostgresUrl } from "../../src/store/store-url.ts";

/**
 * `linkpatrol backup` on a PostgreSQL store (issue 43) copies nothing and names pg_dump, without the password.
 * Once storage.url exists the CLI itself answers so (LINKPATROL_STORAGE_URL=postgres://… backup FILE: exit 2, this
 * message on stderr, no FILE written).
 */

test("a PostgreSQL URL is told from a SQLite path by its scheme", () => {
  for (const url of ["postgres://u@h/db", "postgresql://u:pw@h:5433/db?sslmode=require", " POSTGRES://h/db"]) expect(isPostgresUrl(url)).toBe(true);
  for (const value of ["./data/linkpatrol.db", "/var/lib/linkpatrol/postgres.db", "postgres", "sqlite://x", "", null, undefined])
    expect(isPostgresUrl(value)).toBe(false);
});

test("backup names pg_dump for a PostgreSQL store, with the URL shown redacted and given to pg_dump without its password", () => {
  expect(postgresBackupRefusal(undefined)).toBeNull();
  expect(postgresBackupRefusal(null)).toBeNull();
  expect(postgresBackupRefusal("./data/linkpatrol.db")).toBeNull();
  const message = postgresBackupRefusal("postgres://lp:s3cret@db.internal:5432/linkpatrol")!;
  expect(message).toContain("the store is the PostgreSQL database postgres://lp:***@db.internal:5432/linkpatrol (storage.url)");
  expect(message).toContain("pg_dump --format=custom --file=linkpatrol.dump 'postgres://lp@db.internal:5432/linkpatrol'");
  expect(message).toContain("pg_restore");
  expect(message).not.toContain("s3cret");
});

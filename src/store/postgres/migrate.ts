import type { SQL } from "bun";
import { MIGRATIONS } from "../migrations/index.ts";
import { SchemaTooNewError, type MigrationReport } from "../migrate.ts";
import schemaSql from "./schema.sql" with { type: "text" };

/**
 * Brings a PostgreSQL store up to this binary's schema. Its schema is the SQLite store's as of the newest
 * migration, generated whole (schema.sql); an empty database gets it in one transaction and every migration tag
 * it covers is recorded, so both stores name their versions alike. Several nodes may start at once: each
 * migrates inside a transaction holding the same advisory lock, so one applies and the others wait, then find
 * nothing to do. A database that knows a tag this binary does not ship is refused, as a SQLite store is.
 */

/** The advisory lock every linkpatrol node takes to migrate (an arbitrary constant: "lp" and a version). */
const MIGRATION_LOCK = 0x6c70_0001;

/** The migration whose snapshot schema.sql was generated from (its first line says). */
const SCHEMA_TAG = /from (\S+)'s snapshot/.exec(schemaSql)?.[1] ?? null;

export async function migratePostgres(sql: SQL, migrations: readonly { tag: string }[] = MIGRATIONS): Promise<MigrationReport> {
  const known = migrations.map((migration) => migration.tag);
  if (SCHEMA_TAG !== known.at(-1))
    throw new Error(`schema.sql was generated from ${SCHEMA_TAG}, not the newest migration ${known.at(-1)}: run scripts/postgres-schema.ts`);
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY NOT NULL, applied_at text NOT NULL)`;
    const done = new Set(((await tx`SELECT tag FROM schema_migrations`) as { tag: string }[]).map((row) => row.tag));
    const unknown = [...done].filter((tag) => !known.includes(tag));
    if (unknown.length > 0) throw new SchemaTooNewError(unknown);
    const pending = known.filter((tag) => !done.has(tag));
    if (pending.length === 0) return { applied: [], current: known.at(-1) ?? null };
    if (done.size > 0) {
      // Only whole schemas exist for PostgreSQL so far: a later migration will bring its own statements here.
      throw new Error(
        `this PostgreSQL store is at ${[...done].at(-1)}; upgrading it to ${known.at(-1)} needs migrations this binary does not have for PostgreSQL`,
      );
    }
    await tx.unsafe(schemaSql);
    const now = new Date().toISOString();
    for (const tag of pending) await tx`INSERT INTO schema_migrations (tag, applied_at) VALUES (${tag}, ${now})`;
    return { applied: pending, current: known.at(-1) ?? null };
  });
}

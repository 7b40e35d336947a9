import type { SQL } from "bun";
import { MIGRATIONS } from "../migrations/index.ts";
import { SchemaTooNewError, type MigrationReport } from "../migrate.ts";
import schemaSql from "./schema.sql" with { type: "text" };
import { POSTGRES_UPGRADES } from "./upgrades/index.ts";

/**
 * Brings a PostgreSQL store up to this binary's schema. Its schema is the SQLite store's as of the newest
 * migration, generated whole (schema.sql); an empty database gets it in one transaction and every migration tag
 * it covers is recorded, so both stores name their versions alike. A store an earlier binary made takes the
 * PostgreSQL statements of each migration it lacks (upgrades/), all in one transaction: it ends upgraded or
 * as it was. Several nodes may start at once: each migrates inside a transaction holding the same advisory
 * lock, so one applies and the others wait, then find nothing to do. A database that knows a tag this binary
 * does not ship is refused, as a SQLite store is.
 */

/** The advisory lock every linkpatrol node takes to migrate (an arbitrary constant: "lp" and a version). */
const MIGRATION_LOCK = 0x6c70_0001;

/** The migration whose snapshot schema.sql was generated from (its first line says). */
const SCHEMA_TAG = /from (\S+)'s snapshot/.exec(schemaSql)?.[1] ?? null;

export async function migratePostgres(
  sql: SQL,
  migrations: readonly { tag: string }[] = MIGRATIONS,
  upgrades: readonly { tag: string; sql: string }[] = POSTGRES_UPGRADES,
): Promise<MigrationReport> {
  const known = migrations.map((migration) => migration.tag);
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY NOT NULL, applied_at text NOT NULL)`;
    const done = new Set(((await tx`SELECT tag FROM schema_migrations`) as { tag: string }[]).map((row) => row.tag));
    const unknown = [...done].filter((tag) => !known.includes(tag));
    if (unknown.length > 0) throw new SchemaTooNewError(unknown);
    const pending = known.filter((tag) => !done.has(tag));
    if (pending.length === 0) return { applied: [], current: known.at(-1) ?? null };
    const now = new Date().toISOString();
    if (done.size > 0) {
      const statements = new Map(upgrades.map((upgrade) => [upgrade.tag, upgrade.sql]));
      const missing = pending.filter((tag) => !statements.has(tag));
      if (missing.length > 0)
        throw new Error(
          `this PostgreSQL store is at ${known.filter((tag) => done.has(tag)).at(-1)}; this binary has no PostgreSQL statements for ${missing.join(", ")} to upgrade it`,
        );
      for (const tag of pending) {
        await tx.unsafe(statements.get(tag)!);
        await tx`INSERT INTO schema_migrations (tag, applied_at) VALUES (${tag}, ${now})`;
      }
      return { applied: pending, current: known.at(-1) ?? null };
    }
    if (SCHEMA_TAG !== known.at(-1))
      throw new Error(`schema.sql was generated from ${SCHEMA_TAG}, not the newest migration ${known.at(-1)}: run scripts/postgres-schema.ts`);
    await tx.unsafe(schemaSql);
    for (const tag of pending) await tx`INSERT INTO schema_migrations (tag, applied_at) VALUES (${tag}, ${now})`;
    return { applied: pending, current: known.at(-1) ?? null };
  });
}

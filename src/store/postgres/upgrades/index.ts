/**
 * The PostgreSQL statements of every migration after POSTGRES_BASE_TAG, the schema the first PostgreSQL stores
 * were made with. A new store takes schema.sql whole; a store made by an earlier binary takes these, in order.
 * Each is written by hand beside its SQLite migration (a migration may move data as well as change tables), as
 * `<tag>.sql` in this folder; test/store/postgres-upgrades.test.ts fails while one is missing, or while a store
 * upgraded from the base differs in any table, column, index, constraint, trigger or function from a new one.
 */

import u0017 from "./0017_shared_sign_in_failures.sql" with { type: "text" };
import u0018 from "./0018_links_cascade_by_trigger.sql" with { type: "text" };

export const POSTGRES_BASE_TAG = "0016_shared_sessions_and_limits";

export const POSTGRES_UPGRADES: readonly { tag: string; sql: string }[] = [
  { tag: "0017_shared_sign_in_failures", sql: u0017 },
  { tag: "0018_links_cascade_by_trigger", sql: u0018 },
];

/**
 * Migrations that change the PostgreSQL schema alone (their SQLite migration changes nothing, so the snapshot
 * schema.sql is generated from does not show them): schema.sql ends with their statements, in order.
 */
const POSTGRES_ONLY = new Set(["0018_links_cascade_by_trigger"]);

/** The statements of the PostgreSQL-only migrations up to `tag` (included), in order: what a store made at `tag` has beyond its snapshot. */
export function postgresOnlyUpTo(tag: string): string {
  const upTo = POSTGRES_UPGRADES.findIndex((upgrade) => upgrade.tag === tag);
  return POSTGRES_UPGRADES.slice(0, upTo + 1)
    .filter((upgrade) => POSTGRES_ONLY.has(upgrade.tag))
    .map((upgrade) => `\n${upgrade.sql}`)
    .join("");
}

/**
 * The PostgreSQL statements of every migration after POSTGRES_BASE_TAG, the schema the first PostgreSQL stores
 * were made with. A new store takes schema.sql whole; a store made by an earlier binary takes these, in order.
 * Each is written by hand beside its SQLite migration (a migration may move data as well as change tables), as
 * `<tag>.sql` in this folder; test/store/postgres-upgrades.test.ts fails while one is missing, or while a store
 * upgraded from the base differs in any table, column, index or constraint from a new one.
 */

import u0017 from "./0017_shared_sign_in_failures.sql" with { type: "text" };

export const POSTGRES_BASE_TAG = "0016_shared_sessions_and_limits";

export const POSTGRES_UPGRADES: readonly { tag: string; sql: string }[] = [{ tag: "0017_shared_sign_in_failures", sql: u0017 }];

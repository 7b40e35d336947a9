import type { SQL } from "bun";
import type { MigrationReport } from "../migrate.ts";
import { connectPostgres, postgresClient, postgresTarget } from "./connect.ts";
import { migratePostgres } from "./migrate.ts";
import { PostgresDb } from "./postgres-db.ts";
import { PostgresHealth } from "./postgres-health.ts";
import { SnapshotVersion } from "./snapshot-version.ts";

/**
 * The PostgreSQL store as a node opens it (`storage.url`): connected, brought to this binary's schema (one node
 * applies, the others wait: migrate.ts), with its Db and its health. A node's connections are a pool of
 * `maxConnections`, plus one for the version token; each crawl job opens a small pool of its own (crawler/crawl-job.ts).
 */

export interface PostgresStore {
  sql: SQL;
  db: PostgresDb;
  /** The URL as it may be shown: password replaced. */
  shown: string;
  health: PostgresHealth;
  /** The store's version token, read on a connection of its own: a read never waits behind the pool's statements. */
  version: SnapshotVersion;
  migrations: MigrationReport;
  close(): Promise<void>;
}

export async function openPostgresStore(url: string, options: { maxConnections?: number; timeoutMs?: number } = {}): Promise<PostgresStore> {
  const { shown } = postgresTarget(url);
  const sql = await connectPostgres(url, { bigint: true, max: options.maxConnections ?? 10, timeoutMs: options.timeoutMs });
  let migrations: MigrationReport;
  try {
    migrations = await migratePostgres(sql);
  } catch (error) {
    await sql.close().catch(() => {});
    throw error;
  }
  // Connects at its first read: a node with rate limits on reads no token (runtime.ts) and opens no connection for it.
  const versionSql = postgresClient(url, { bigint: true, max: 1, timeoutMs: options.timeoutMs });
  const health = new PostgresHealth(sql, { shown });
  return {
    sql,
    db: new PostgresDb(sql),
    shown,
    health,
    version: new SnapshotVersion(new PostgresDb(versionSql)),
    migrations,
    async close() {
      health.stop();
      await Promise.all([sql.close(), versionSql.close()]);
    },
  };
}

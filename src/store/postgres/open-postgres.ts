import type { SQL } from "bun";
import type { MigrationReport } from "../migrate.ts";
import { connectPostgres, postgresTarget } from "./connect.ts";
import { migratePostgres } from "./migrate.ts";
import { PostgresDb } from "./postgres-db.ts";
import { PostgresHealth } from "./postgres-health.ts";

/**
 * The PostgreSQL store as a node opens it (`storage.url`): connected, brought to this binary's schema (one node
 * applies, the others wait: migrate.ts), with its Db and its health. A node's connections are a pool of
 * `maxConnections`; each crawl job opens a small pool of its own (crawler/crawl-job.ts).
 */

export interface PostgresStore {
  sql: SQL;
  db: PostgresDb;
  /** The URL as it may be shown: password replaced. */
  shown: string;
  health: PostgresHealth;
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
  const health = new PostgresHealth(sql, { shown });
  return {
    sql,
    db: new PostgresDb(sql),
    shown,
    health,
    migrations,
    async close() {
      health.stop();
      await sql.close();
    },
  };
}

import type { SQL } from "bun";
import type { Db } from "../../src/store/db.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { freshDatabase } from "./postgres.ts";

/**
 * Several nodes on one PostgreSQL store, as far as the store sees them: `count` separate clients (each its own
 * connection pool, as separate processes would have) on one fresh, migrated database.
 */
export async function postgresNodes(count: number): Promise<{ dbs: Db[]; close(): Promise<void> }> {
  const database = await freshDatabase();
  const clients: SQL[] = [];
  try {
    for (let i = 0; i < count; i++) clients.push(await connectPostgres(database.url, { bigint: true, max: 2 }));
    await migratePostgres(clients[0]!);
  } catch (error) {
    await Promise.all(clients.map((client) => client.close()));
    await database.drop();
    throw error;
  }
  return {
    dbs: clients.map((client) => new PostgresDb(client)),
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await database.drop();
    },
  };
}

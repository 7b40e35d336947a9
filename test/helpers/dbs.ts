import { afterAll, beforeAll, describe } from "bun:test";
import type { SQL } from "bun";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { openStore } from "../../src/store/sqlite.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";
import { freshDatabase, HAS_POSTGRES } from "./postgres.ts";

/**
 * The store's tests run on both dialects (issue 43): each store below is empty and migrated; SQLite in memory,
 * PostgreSQL a fresh database on the test server (skipped without one, failing under CI=true: helpers/postgres.ts).
 */

export interface TestDb {
  db: Db;
  close(): Promise<void>;
}

export interface DialectCase {
  name: "sqlite" | "postgres";
  /** False when this dialect cannot run here (no PostgreSQL server): describe.skipIf(!available). */
  available: boolean;
  open(): Promise<TestDb>;
}

export const DIALECTS: DialectCase[] = [
  {
    name: "sqlite",
    available: true,
    async open() {
      const store = openStore(":memory:");
      migrate(store.sqlite);
      return { db: new SqliteDb(store.sqlite), close: async () => store.close() };
    },
  },
  {
    name: "postgres",
    available: HAS_POSTGRES,
    async open() {
      const database = await freshDatabase();
      let sql: SQL | undefined;
      try {
        sql = await connectPostgres(database.url, { bigint: true, max: 4 });
        await migratePostgres(sql);
      } catch (error) {
        await sql?.close();
        await database.drop();
        throw error;
      }
      const client = sql;
      return {
        db: new PostgresDb(client),
        async close() {
          await client.close();
          await database.drop();
        },
      };
    },
  },
];

/**
 * `body`'s tests once per dialect, in a describe block named `${title} on <dialect>`, sharing one store opened
 * before them and closed after (for tests that fill a store once and read it many ways); `store()` is that store.
 */
export function forEachDialect(title: string, body: (store: () => Db, dialect: DialectCase) => void): void {
  for (const dialect of DIALECTS) {
    describe.skipIf(!dialect.available)(`${title} on ${dialect.name}`, () => {
      let opened: TestDb | undefined;
      beforeAll(async () => {
        opened = await dialect.open();
      });
      afterAll(() => opened?.close());
      body(() => opened!.db, dialect);
    });
  }
}

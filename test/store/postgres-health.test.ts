import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { PostgresHealth } from "../../src/store/postgres/postgres-health.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/** /healthz's view of a PostgreSQL store: real server errors, a real unreachable port. */
describe.skipIf(!HAS_POSTGRES)("PostgreSQL store health", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: SQL;
  beforeAll(async () => {
    database = await freshDatabase();
    sql = new SQL(database.url, { max: 2 });
  });
  afterAll(async () => {
    await sql.close();
    await database.drop();
  });

  async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
    try {
      await work();
    } catch (error) {
      return error;
    }
    throw new Error("expected the statement to fail");
  }

  test("a server that answers is healthy; a request's own error (no such table) is not the store's", async () => {
    const health = new PostgresHealth(sql, { shown: "postgres://postgres@127.0.0.1:5432/x" });
    await health.ping();
    expect(health.problem()).toBeNull();
    health.noteFailure(await errorOf(() => sql`SELECT * FROM no_such_table`));
    expect(health.problem()).toBeNull();
  });

  test("a server nobody answers on: the problem names the store without its password", async () => {
    const unreachable = new SQL("postgres://lp:pw-secret@127.0.0.1:9/x", { max: 1, connectionTimeout: 2 });
    try {
      const health = new PostgresHealth(unreachable, { shown: "postgres://lp:***@127.0.0.1:9/x", timeoutMs: 2_000 });
      await health.ping();
      expect(health.problem()).toStartWith("the PostgreSQL store postgres://lp:***@127.0.0.1:9/x cannot be reached: ");
      expect(health.problem()).not.toContain("pw-secret");
    } finally {
      await unreachable.close();
    }
  }, 10_000);

  test("a connection ended by the server is a problem until a ping succeeds", async () => {
    const health = new PostgresHealth(sql, { shown: "pg" });
    const victim = new SQL(database.url, { max: 1 });
    try {
      const [{ pid }] = await victim`SELECT pg_backend_pid() AS pid`;
      await sql`SELECT pg_terminate_backend(${pid})`;
      health.noteFailure(await errorOf(() => victim`SELECT 1`));
      expect(health.problem()).toContain("SQLSTATE 57P01");
      await health.ping();
      expect(health.problem()).toBeNull();
    } finally {
      await victim.close();
    }
  });

  test("a refused write (read-only) holds for holdMs, however the pings go", async () => {
    let now = 0;
    const health = new PostgresHealth(sql, { shown: "pg", holdMs: 60_000, now: () => now });
    await sql`CREATE TABLE t (x int)`;
    const refused = await errorOf(() =>
      sql.begin(async (tx) => {
        await tx`SET TRANSACTION READ ONLY`;
        await tx`INSERT INTO t VALUES (1)`;
      }),
    );
    health.noteFailure(refused);
    await health.ping();
    expect(health.problem()).toContain("SQLSTATE 25006");
    now = 60_001;
    expect(health.problem()).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { NodeHeartbeat, NodeNameTakenError } from "../../src/cluster/node-heartbeat.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { LeasesRepo, type Lease } from "../../src/store/leases.repo.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { storeNow } from "../../src/store/store-clock.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * A node's membership on a real PostgreSQL store: one live process per node name, leases kept alive by the beat,
 * a name taken over after a silence, and a node cut off from the database told it holds nothing.
 */

describe.skipIf(!HAS_POSTGRES)("a node's heartbeat", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: SQL;
  let db: PostgresDb;
  beforeAll(async () => {
    database = await freshDatabase();
    sql = await connectPostgres(database.url, { bigint: true, max: 2 });
    await migratePostgres(sql);
    db = new PostgresDb(sql);
  });
  afterAll(async () => {
    await sql.close();
    await database.drop();
  });

  const heartbeat = (name: string, options: { leaseMs?: number; onHeld?: (held: Lease[]) => void; onNameLost?: () => void; on?: PostgresDb } = {}) =>
    new NodeHeartbeat({ db: options.on ?? db, name, version: "test", leaseMs: options.leaseMs ?? 30_000, logger: silentLogger, ...options });

  test("a second live process under the same name is refused, naming the holder; after a clean leave the name is free", async () => {
    const first = heartbeat("node-a");
    await first.join();
    const second = heartbeat("node-a");
    const refused = await second.join().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NodeNameTakenError);
    expect((refused as Error).message).toContain('another linkpatrol process runs as node "node-a"');
    await first.leave();
    await second.join();
    await second.leave();
  });

  test("a beat extends the node's leases and reports them; a name taken over after a silence frees the old leases and stops the old process", async () => {
    const held: Lease[][] = [];
    let lost = 0;
    const old = heartbeat("node-b", { onHeld: (leases) => held.push(leases), onNameLost: () => lost++ });
    await old.join();
    const now = await storeNow(db);
    expect(await new LeasesRepo(db).claim("crawl", "c-1", "node-b", 30_000, now)).toBe(1);
    await old.beat();
    expect(held.at(-1)!.map((lease) => lease.key)).toEqual(["c-1"]);
    expect(Date.parse(held.at(-1)![0]!.expires_at)).toBeGreaterThan(now.getTime());

    // The old process goes silent for longer than a lease: a new process of the name takes it and frees its work.
    await sql`UPDATE cluster_nodes SET heartbeat_at = '2000-01-01T00:00:00.000Z' WHERE name = 'node-b'`;
    const replacement = heartbeat("node-b");
    await replacement.join();
    expect(Date.parse((await new LeasesRepo(db).find("crawl", "c-1"))!.expires_at)).toBeLessThanOrEqual(Date.parse("1970-01-02T00:00:00Z"));
    await old.beat();
    expect(lost).toBe(1);
    expect(held.at(-1)).toEqual([]);
    await replacement.leave();
    await old.leave(false);
  });

  test("a node cut off from the database for a whole lease is told it holds nothing", async () => {
    const own = await connectPostgres(database.url, { bigint: true, max: 1 });
    const held: Lease[][] = [];
    const node = heartbeat("node-c", { leaseMs: 300, onHeld: (leases) => held.push(leases), on: new PostgresDb(own) });
    await node.join();
    await new LeasesRepo(db).claim("crawl", "c-2", "node-c", 30_000, await storeNow(db));
    await node.beat();
    expect(held.at(-1)!.map((lease) => lease.key)).toEqual(["c-2"]);
    await own.close();
    await node.beat();
    // Failed, but not yet for a whole lease: nothing is given up on one missed beat.
    expect(held).toHaveLength(1);
    await Bun.sleep(350);
    await node.beat();
    expect(held.at(-1)).toEqual([]);
    await node.leave(false);
  });
});

import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { MIGRATIONS } from "../migrations/index.ts";
import { StoreCopyError } from "./copy.ts";
import { creationOrder } from "./schema-from-snapshot.ts";
import { storeTables } from "./store-tables.ts";

/**
 * Moving back down: every row of a PostgreSQL store copied into a new SQLite store that this binary's migrations
 * just made, read from one snapshot of the database (a REPEATABLE READ, READ ONLY transaction that writes nothing
 * there) through a cursor, so millions of links are never held whole, and written in one SQLite transaction (all of
 * it or nothing). Ids are kept, and each AUTOINCREMENT sequence is set at least as high as PostgreSQL's own, so
 * the appliance never hands out an id the cluster gave once. Then every table's count is compared. Node-only state
 * is left behind (SKIPPED); the refusals come first: another schema version, a node still beating.
 */

/** Rows fetched from the cursor at a time. */
const BATCH_ROWS = 1_000;

/** Tables of the cluster's own state that the appliance keeps elsewhere or not at all: left behind, and why. */
export const SKIPPED: Readonly<Record<string, string>> = {
  cluster_nodes: "the nodes' names and heartbeats; the appliance is one process",
  work_leases: "which node held which crawl or delivery; the appliance holds its own work",
  rate_buckets: "shared rate-limit buckets; the appliance keeps them in memory (full again)",
  sign_in_failures: "shared sign-in failure counts; the appliance keeps them in memory (forgotten)",
};

export interface CopyDownReport {
  /** Tables copied, in the order filled, with the rows each now holds. */
  tables: { name: string; rows: number }[];
  /** Tables left behind, with their row count in PostgreSQL. */
  skipped: { name: string; rows: number; why: string }[];
  /** Crawls that were pending or running on the cluster: the appliance takes them up when it starts. */
  unfinishedCrawls: number;
  /** The store's id (its `store_identity` row). */
  storeId: string | null;
}

/** The version a store names: the newest migration tag it carries. */
function versionOf(tags: readonly string[]): string {
  return [...tags].sort().at(-1) ?? "(none)";
}

/**
 * Refuses a database that is not this binary's schema, naming both versions: a store of another release would be
 * read with the wrong columns (or lose the newer ones).
 */
async function assertSameSchema(tx: SQL): Promise<void> {
  const [known] = (await tx`SELECT to_regclass('public.schema_migrations') IS NOT NULL AS present`) as { present: boolean }[];
  if (!known!.present) throw new StoreCopyError("the PostgreSQL database holds no linkpatrol store (it has no schema_migrations table)");
  const tags = ((await tx`SELECT tag FROM schema_migrations`) as { tag: string }[]).map((row) => row.tag);
  const ours = MIGRATIONS.map((migration) => migration.tag);
  const unknown = tags.filter((tag) => !ours.includes(tag));
  const missing = ours.filter((tag) => !tags.includes(tag));
  if (unknown.length > 0)
    throw new StoreCopyError(
      `the PostgreSQL store is at schema ${versionOf(tags)}, newer than this linkpatrol's ${versionOf(ours)} (unknown migrations: ${unknown.join(", ")}); copy it with the linkpatrol release the nodes run`,
    );
  if (missing.length > 0)
    throw new StoreCopyError(
      `the PostgreSQL store is at schema ${versionOf(tags)}, older than this linkpatrol's ${versionOf(ours)} (missing: ${missing.join(", ")}); copy it with the linkpatrol release the nodes run`,
    );
}

/** Refuses while a node has beaten within `leaseMs` (on the database's clock): it could still be writing. */
async function assertNoNodeAlive(tx: SQL, leaseMs: number): Promise<void> {
  const nodes = (await tx`SELECT name, heartbeat_at, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS bigint) AS now FROM cluster_nodes ORDER BY name`) as {
    name: string;
    heartbeat_at: string;
    now: bigint | string;
  }[];
  const alive = nodes.map((node) => ({ name: node.name, agoMs: Number(node.now) - Date.parse(node.heartbeat_at) })).filter((node) => node.agoMs < leaseMs);
  if (alive.length > 0)
    throw new StoreCopyError(
      `${alive.map((node) => `${node.name} (last heartbeat ${Math.max(0, Math.round(node.agoMs / 1000))} s ago)`).join(", ")} ${alive.length === 1 ? "is" : "are"} still running on the PostgreSQL store; stop every node first (a node that died counts as gone ${leaseMs / 1000} s after its last heartbeat, cluster.lease)`,
    );
}

/** The highest id PostgreSQL's identity sequence for `table`.`column` has handed out, or may have (null: none). */
async function sequenceLast(tx: SQL, table: string, column: string): Promise<bigint | null> {
  const [named] = (await tx`SELECT pg_get_serial_sequence(${table}, ${column}) AS name`) as { name: string | null }[];
  if (!named?.name) return null;
  // Read from the sequence itself: after setval(n, false) (a copy up) the next id is n, so n - 1 is taken.
  const [row] = (await tx.unsafe(`SELECT last_value, is_called FROM ${named.name}`)) as { last_value: bigint | string; is_called: boolean }[];
  const last = BigInt(row!.last_value);
  return row!.is_called ? last : last - 1n;
}

/**
 * Copies the PostgreSQL store `pg` into `sqlite`, a store this binary has just created and migrated (nothing else
 * in it), refusing another schema version or a live node (`leaseMs`: cluster.lease).
 */
export async function copyStoreFromPostgres(pg: SQL, sqlite: Database, leaseMs: number): Promise<CopyDownReport> {
  const tables = creationOrder(Object.values(storeTables(sqlite).tables));
  const report: CopyDownReport = { tables: [], skipped: [], unfinishedCrawls: 0, storeId: null };
  await pg.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
    await assertSameSchema(tx);
    await assertNoNodeAlive(tx, leaseMs);
    const [unfinished] = (await tx`SELECT COUNT(*) AS n FROM crawls WHERE status IN ('pending', 'running')`) as { n: bigint | string }[];
    report.unfinishedCrawls = Number(unfinished!.n);

    // Foreign keys are checked once, over the whole copy: rows of a table that names itself arrive in any order.
    sqlite.exec("PRAGMA foreign_keys = OFF");
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      for (const table of tables) {
        const [counted] = (await tx`SELECT COUNT(*) AS n FROM ${tx(table.name)}`) as { n: bigint | string }[];
        const inPostgres = Number(counted!.n);
        const why = SKIPPED[table.name];
        if (why !== undefined) {
          report.skipped.push({ name: table.name, rows: inPostgres, why });
          continue;
        }
        // A table the cluster left empty keeps what the migrations made (a store born on PostgreSQL has no id row).
        if (inPostgres > 0) sqlite.exec(`DELETE FROM "${table.name}"`);
        const columns = Object.keys(table.columns);
        const list = columns.map((c) => `"${c}"`).join(", ");
        const insert = sqlite.prepare(`INSERT INTO "${table.name}" (${list}) VALUES (${columns.map(() => "?").join(", ")})`);
        await tx.unsafe(`DECLARE copy_down NO SCROLL CURSOR FOR SELECT ${list} FROM "${table.name}"`);
        const fetchBatch = async () => (await tx.unsafe(`FETCH ${BATCH_ROWS} FROM copy_down`).values()) as unknown[][];
        // The next batch is asked for before this one is written: PostgreSQL reads while SQLite writes.
        for (let next = fetchBatch(); ; ) {
          const rows = await next;
          const more = rows.length === BATCH_ROWS;
          if (more) {
            next = fetchBatch();
            // Awaited on the next turn; if this batch's writes fail first, the transaction's end reports that.
            next.catch(() => {});
          }
          for (const row of rows) insert.run(...(row.map(sqliteValue) as never[]));
          if (!more) break;
        }
        await tx.unsafe("CLOSE copy_down");
        insert.finalize();
        for (const column of Object.values(table.columns).filter((c) => c.primaryKey && c.autoincrement === true)) {
          const last = await sequenceLast(tx, table.name, column.name);
          if (last !== null) raiseSequence(sqlite, table.name, last);
        }
        const rows = sqlite.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM "${table.name}"`).get()!.n;
        if (inPostgres > 0 && rows !== inPostgres) throw new Error(`${table.name}: ${inPostgres} rows in PostgreSQL, ${rows} copied`);
        report.tables.push({ name: table.name, rows });
      }
      const broken = sqlite.query<{ table: string; parent: string }, []>("PRAGMA foreign_key_check").all();
      if (broken.length > 0)
        throw new Error(
          `rows name missing rows: ${broken
            .slice(0, 5)
            .map((b) => `${b.table} → ${b.parent}`)
            .join(", ")}`,
        );
      sqlite.exec("COMMIT");
    } catch (error) {
      sqlite.exec("ROLLBACK");
      throw error;
    } finally {
      sqlite.exec("PRAGMA foreign_keys = ON");
    }
  });
  report.storeId = sqlite.query<{ store_id: string }, []>("SELECT store_id FROM store_identity WHERE id = 1").get()?.store_id ?? null;
  return report;
}

/** Sets `table`'s AUTOINCREMENT sequence to at least `last`, so the next id SQLite hands out is above it. */
function raiseSequence(sqlite: Database, table: string, last: bigint): void {
  const updated = sqlite.query("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?").run(last, table);
  if (updated.changes === 0) sqlite.query("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table, last);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** PostgreSQL's bigint as a number where it fits (bound about twice as fast as a BigInt: docs/decisions.md, "Moving back down"); else as is. */
function sqliteValue(value: unknown): unknown {
  return typeof value === "bigint" && value <= SAFE && value >= -SAFE ? Number(value) : value;
}

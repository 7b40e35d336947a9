import { chownSync, existsSync, linkSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { migrate } from "../store/migrate.ts";
import { connectPostgres, postgresTarget } from "../store/postgres/connect.ts";
import { copyStoreToPostgres } from "../store/postgres/copy.ts";
import { copyStoreFromPostgres } from "../store/postgres/copy-down.ts";
import { storeTables } from "../store/postgres/store-tables.ts";
import { acquireServiceLock } from "../store/service-lock.ts";
import { openStore } from "../store/sqlite.ts";
import { isPostgresUrlShape } from "../config/network-values.ts";
import { EXIT_OK, EXIT_USAGE, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const URL_SHAPE = "postgres://USER:PASSWORD@HOST:PORT/DATABASE";

const STORE_HELP = `Usage: linkpatrol store copy --to ${URL_SHAPE} [--config FILE]
       linkpatrol store copy --from ${URL_SHAPE} [--config FILE]

--to moves an appliance up to several nodes (docs/cluster.md): copies every table of the SQLite store
(storage.path) into an empty PostgreSQL database, in one transaction, then compares each table's row
count in PostgreSQL with the rows copied. The SQLite store is left as it was: it stays the way back.
Stop the service first (the copy refuses while it runs) and run \`linkpatrol migrate\` if the store
is from an earlier version. The database must be empty (CREATE DATABASE linkpatrol OWNER linkpatrol).

--from moves it back down: copies every table of the PostgreSQL store into a NEW SQLite store at
storage.path, made by this version's migrations (refused if a file is there: nothing is overwritten),
read from one snapshot of the database and written in one transaction; ids are kept, id sequences go
on after PostgreSQL's, and each table's row count is compared. Left behind: cluster_nodes and
work_leases (the nodes' own state), rate_buckets and sign_in_failures (kept in memory by the
appliance). Stop every node first: refused while a node has beaten within cluster.lease, and for a
store of another schema version than this linkpatrol's. Crawls that were running are copied as they
are and resumed by the service when it starts. The PostgreSQL database is not changed.

Prints the row counts and the setting to change; the password is never printed.`;

/** `linkpatrol store copy --to URL` and `linkpatrol store copy --from URL` */
export async function storeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { to: { type: "string" }, from: { type: "string" } });
  const [action, ...extra] = positionals;
  if (values.help || action === undefined) {
    out(STORE_HELP);
    return action === undefined && !values.help ? EXIT_USAGE : EXIT_OK;
  }
  if (action !== "copy") throw new UsageError(`unknown store command: ${action} (store copy --to postgres://… or --from postgres://…)`);
  rejectExtraArgs(extra);
  if (values.to !== undefined && values.from !== undefined) throw new UsageError("store copy takes --to or --from, not both");
  if (values.to === undefined && values.from === undefined)
    throw new UsageError(`store copy needs --to ${URL_SHAPE} (up to PostgreSQL) or --from ${URL_SHAPE} (back down to SQLite)`);
  const [option, url] = values.to !== undefined ? ["--to", values.to] : ["--from", values.from!];
  if (!isPostgresUrlShape(url)) throw new UsageError(`${option} must be a ${URL_SHAPE} URL`);
  const { config } = loadConfig({ file: values.config });
  if (config.storage.path === ":memory:") throw new UsageError(`storage.path is :memory:; there is no store on disk to copy ${values.to ? "from" : "into"}`);
  return values.to !== undefined ? copyUp(config, values.to) : copyDown(config, values.from!);
}

/** The table of verified counts, then the total. */
function printCounts(tables: { name: string; rows: number }[]): void {
  const width = Math.max(5, ...tables.map((table) => table.name.length));
  for (const table of tables) out(`  ${table.name.padEnd(width)}  ${String(table.rows).padStart(9)}`);
  const total = tables.reduce((sum, table) => sum + table.rows, 0);
  out(`  ${"total".padEnd(width)}  ${String(total).padStart(9)} rows in ${tables.length} tables`);
}

async function copyUp(config: Config, url: string): Promise<number> {
  const target = postgresTarget(url);
  const path = config.storage.path;
  if (!existsSync(path)) throw new UsageError(`there is no store at ${path} (storage.path) to copy`);
  // Held for the whole copy: the service must not write what the copy would leave behind.
  const lock = acquireServiceLock(path, "copy");
  try {
    const store = openStore(path, { busyTimeoutMs: config.storage.busy_timeout });
    try {
      const pg = await connectPostgres(url);
      try {
        const report = await copyStoreToPostgres(store.sqlite, pg, storeTables(store.sqlite));
        out(`copied ${path} into ${target.shown}; row counts verified in PostgreSQL:`);
        printCounts(report.tables);
        out("");
        out("Next, in the config of every node (or env LINKPATROL_STORAGE_URL), the password written in (or left out and given as PGPASSWORD):");
        out(`  storage:\n    url: ${target.shown}`);
        out(`storage.path (${path}) is no longer read once storage.url is set; keep the file as the way back.`);
        return EXIT_OK;
      } finally {
        await pg.close();
      }
    } finally {
      store.close();
    }
  } finally {
    lock.release();
  }
}

/** The store is built beside its place and linked there once complete: a failed or killed copy leaves no store at storage.path. */
function removeBuilding(building: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${building}${suffix}`, { force: true });
}

/**
 * A store made by root (an operator's `sudo linkpatrol store copy --from`) goes to the owner of its directory, as the
 * lock file does (store/service-lock.ts): else the service's user could not open it.
 */
function giveToDirectoryOwner(file: string, path: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = statSync(dirname(path));
  if (owner.uid !== 0 || owner.gid !== 0) chownSync(file, owner.uid, owner.gid);
}

async function copyDown(config: Config, url: string): Promise<number> {
  const source = postgresTarget(url);
  const path = config.storage.path;
  const refuseExisting = () =>
    new UsageError(
      `there is already a store at ${path} (storage.path); store copy --from never overwrites one: move it away first (it may be the way back), or set storage.path to a new file`,
    );
  if (existsSync(path)) throw refuseExisting();
  // Held for the whole copy: no service may start on the path (and make a store there) meanwhile.
  const lock = acquireServiceLock(path, "copy");
  const building = `${path}.copying`;
  try {
    removeBuilding(building);
    const pg = await connectPostgres(url, { bigint: true, max: 1 });
    try {
      const store = openStore(building, { create: true, busyTimeoutMs: config.storage.busy_timeout });
      let report: Awaited<ReturnType<typeof copyStoreFromPostgres>>;
      try {
        migrate(store.sqlite);
        report = await copyStoreFromPostgres(pg, store.sqlite, config.cluster.lease);
        // Everything into the file itself, so the file linked into place is the whole store.
        store.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        store.close();
      }
      giveToDirectoryOwner(building, path);
      try {
        linkSync(building, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw refuseExisting();
        throw error;
      }
      if (report.storeId !== null) lock.recordStore(report.storeId);
      out(`copied ${source.shown} into ${path}; row counts verified in SQLite:`);
      printCounts(report.tables);
      if (report.skipped.length > 0) {
        out("left behind (the cluster's own state):");
        for (const table of report.skipped) out(`  ${table.name} (${table.rows} rows): ${table.why}`);
      }
      if (report.unfinishedCrawls > 0)
        out(`${report.unfinishedCrawls} crawl(s) were pending or running on the cluster: the service takes them up where they stopped when it starts.`);
      out("");
      out("Next: stop the nodes for good, remove storage.url from the config (and LINKPATROL_STORAGE_URL from the environment),");
      out(`and start one \`linkpatrol serve\` with storage.path: ${path}. Dashboard users sign in again (the appliance signs`);
      out(`sessions with its own key). ${source.shown} is left as it was.`);
      return EXIT_OK;
    } finally {
      await pg.close();
    }
  } finally {
    removeBuilding(building);
    lock.release();
  }
}

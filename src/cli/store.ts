import { existsSync } from "node:fs";
import { loadConfig } from "../config/load.ts";
import { connectPostgres, postgresTarget } from "../store/postgres/connect.ts";
import { copyStoreToPostgres } from "../store/postgres/copy.ts";
import { storeTables } from "../store/postgres/store-tables.ts";
import { acquireServiceLock } from "../store/service-lock.ts";
import { openStore } from "../store/sqlite.ts";
import { isPostgresUrlShape } from "../config/network-values.ts";
import { EXIT_OK, EXIT_USAGE, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const STORE_HELP = `Usage: linkpatrol store copy --to postgres://USER:PASSWORD@HOST:PORT/DATABASE [--config FILE]

Moves an appliance up to several nodes (docs/cluster.md): copies every table of the SQLite store
(storage.path) into an empty PostgreSQL database, in one transaction, then compares each table's row
count in PostgreSQL with the rows copied. The SQLite store is left as it was: it stays the way back.
Stop the service first (the copy refuses while it runs) and run \`linkpatrol migrate\` if the store
is from an earlier version. The database must be empty (CREATE DATABASE linkpatrol OWNER linkpatrol).
Prints the row counts and the setting to change; the password is never printed.`;

/** `linkpatrol store copy --to URL` */
export async function storeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { to: { type: "string" } });
  const [action, ...extra] = positionals;
  if (values.help || action === undefined) {
    out(STORE_HELP);
    return action === undefined && !values.help ? EXIT_USAGE : EXIT_OK;
  }
  if (action !== "copy") throw new UsageError(`unknown store command: ${action} (store copy --to postgres://…)`);
  rejectExtraArgs(extra);
  if (values.to === undefined) throw new UsageError("store copy needs --to postgres://USER:PASSWORD@HOST:PORT/DATABASE");
  if (values.to === undefined || !isPostgresUrlShape(values.to)) throw new UsageError("--to must be a postgres://USER:PASSWORD@HOST:PORT/DATABASE URL");
  const target = postgresTarget(values.to);
  const { config } = loadConfig({ file: values.config });
  const path = config.storage.path;
  if (path === ":memory:") throw new UsageError("storage.path is :memory:; there is no store on disk to copy");
  if (!existsSync(path)) throw new UsageError(`there is no store at ${path} (storage.path) to copy`);

  // Held for the whole copy: the service must not write what the copy would leave behind.
  const lock = acquireServiceLock(path, "copy");
  try {
    const store = openStore(path, { busyTimeoutMs: config.storage.busy_timeout });
    try {
      const pg = await connectPostgres(values.to);
      try {
        const report = await copyStoreToPostgres(store.sqlite, pg, storeTables(store.sqlite));
        const width = Math.max(...report.tables.map((table) => table.name.length));
        out(`copied ${path} into ${target.shown}; row counts verified in PostgreSQL:`);
        for (const table of report.tables) out(`  ${table.name.padEnd(width)}  ${String(table.rows).padStart(9)}`);
        const total = report.tables.reduce((sum, table) => sum + table.rows, 0);
        out(`  ${"total".padEnd(width)}  ${String(total).padStart(9)} rows in ${report.tables.length} tables`);
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

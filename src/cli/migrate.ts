import { loadConfig } from "../config/load.ts";
import { assertWritable, openStore } from "../store/sqlite.ts";
import { existsSync } from "node:fs";
import { acquireServiceLock, migrateLocked } from "../store/service-lock.ts";
import { storeIdOf } from "../store/store-record.ts";
import { admitOpenedStore, admitStoreFile } from "../store/store-admission.ts";
import { connectPostgres, postgresTarget } from "../store/postgres/connect.ts";
import { migratePostgres } from "../store/postgres/migrate.ts";
import type { MigrationReport } from "../store/migrate.ts";
import { EXIT_OK, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const MIGRATE_HELP = `Usage: linkpatrol migrate [--config FILE] [--new-store]

Applies pending database migrations and exits. \`serve\` does this at start too; run it on its own to
upgrade the store before starting a new binary (take a backup first: see docs/operations.md). While a
\`serve\` runs on the store it refuses (exit 2) when there is something to apply: stop the service first.
On a new install it creates the store, as the first \`serve\` would. Where STORE.lock records a store that
is now missing, emptied or swapped for another, it refuses like \`serve\`; --new-store then creates a new,
empty store, or takes the one found there as the service's own.

With storage.url (PostgreSQL) it migrates that database instead: an empty one gets the whole schema, one
made by an earlier linkpatrol its missing migrations, in one transaction; nodes starting meanwhile wait
for it. Stop every node of the older binary first (docs/cluster.md, "Upgrading").`;

function printReport(report: MigrationReport): void {
  out(report.applied.length > 0 ? `applied: ${report.applied.join(", ")}` : "already up to date");
  out(`schema version: ${report.current ?? "(none)"}`);
}

/** `linkpatrol migrate` */
export async function migrateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { "new-store": { type: "boolean" } });
  if (values.help) {
    out(MIGRATE_HELP);
    return EXIT_OK;
  }
  rejectExtraArgs(positionals);
  const { config } = loadConfig({ file: values.config });
  if (config.storage.url !== null) {
    if (values["new-store"] === true) throw new UsageError("--new-store is for a SQLite store (storage.path); storage.url names a PostgreSQL database");
    const sql = await connectPostgres(config.storage.url);
    try {
      const report = await migratePostgres(sql);
      out(`migrated ${postgresTarget(config.storage.url).shown} (storage.url)`);
      printReport(report);
      return EXIT_OK;
    } finally {
      await sql.close();
    }
  }
  const path = config.storage.path;
  const admission = { mayCreate: true, newStore: values["new-store"] === true };
  // Creating or taking a store happens under the lock, as in serve: never beside a running service.
  const setUp = admission.newStore || !existsSync(path);
  const lock = setUp && path !== ":memory:" ? acquireServiceLock(path, "migrate") : null;
  try {
    const file = admitStoreFile(path, admission);
    const store = openStore(path, { busyTimeoutMs: config.storage.busy_timeout, create: file.create });
    try {
      admitOpenedStore(store.sqlite, path, file, admission);
      assertWritable(store.sqlite, path);
      // Refused while a service holds the store, unless there is nothing to apply (docs/operations.md, "Upgrade").
      const report = migrateLocked(store.sqlite, path, { lockHeld: lock !== null });
      const storeId = storeIdOf(store.sqlite);
      if (lock !== null && storeId !== null) lock.recordStore(storeId);
      if (file.setAside !== null) out(`moved a WAL left without its store aside: ${file.setAside}`);
      if (file.create) out(`created the store ${path}`);
      printReport(report);
      return EXIT_OK;
    } finally {
      store.close();
    }
  } finally {
    lock?.release();
  }
}

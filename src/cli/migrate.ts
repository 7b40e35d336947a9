import { loadConfig } from "../config/load.ts";
import { assertWritable, openStore } from "../store/sqlite.ts";
import { migrateLocked } from "../store/service-lock.ts";
import { EXIT_OK, out, parseCommandArgs, rejectExtraArgs } from "./usage.ts";

export const MIGRATE_HELP = `Usage: linkpatrol migrate [--config FILE]

Applies pending database migrations and exits. \`serve\` does this at start too; run it on its own to
upgrade the store before starting a new binary (take a backup first: see docs/operations.md). While a
\`serve\` runs on the store it refuses (exit 2) when there is something to apply: stop the service first.`;

/** `linkpatrol migrate` */
export function migrateCommand(args: string[]): number {
  const { values, positionals } = parseCommandArgs(args, {});
  if (values.help) {
    out(MIGRATE_HELP);
    return EXIT_OK;
  }
  rejectExtraArgs(positionals);
  const { config } = loadConfig({ file: values.config });
  const store = openStore(config.storage.path, { busyTimeoutMs: config.storage.busy_timeout });
  try {
    assertWritable(store.sqlite, config.storage.path);
    // Refused while a service holds the store, unless there is nothing to apply (docs/operations.md, "Upgrade").
    const report = migrateLocked(store.sqlite, config.storage.path, { lockHeld: false });
    out(report.applied.length > 0 ? `applied: ${report.applied.join(", ")}` : "already up to date");
    out(`schema version: ${report.current ?? "(none)"}`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

import { loadConfig } from "../config/load.ts";
import { redactPassword } from "../core/redact.ts";
import { BackupInterruptedError, backupStore } from "../store/backup.ts";
import { err, EXIT_OK, EXIT_USAGE, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const BACKUP_HELP = `Usage: linkpatrol backup FILE [--force] [--config FILE]

Writes a consistent copy of the store (storage.path) to FILE while the service keeps running (SQLite's
VACUUM INTO: one snapshot, compacted). The copy is checked before it gets its name; FILE must not exist
unless --force. Restore: stop the service, put the copy at storage.path (remove any -wal/-shm files beside
it), start the service. See docs/operations.md. A PostgreSQL store (storage.url) is backed up with
PostgreSQL's own tools (pg_dump); backup says so and writes nothing.`;

/**
 * What `backup` answers when the store is a PostgreSQL database (`storage.url`): it copies SQLite files only, and
 * says which tool backs the database up instead, rather than copying a file the service no longer uses. Null for
 * a SQLite store. The URL is shown without its password.
 */
export function postgresBackupRefusal(storeUrl: string | null): string | null {
  if (storeUrl === null) return null;
  let shown = "(storage.url)";
  let bare = "postgres://USER@HOST:PORT/DATABASE";
  try {
    shown = redactPassword(new URL(storeUrl)).href;
    const withoutPassword = new URL(storeUrl);
    withoutPassword.password = "";
    bare = withoutPassword.href;
  } catch {
    // Not a URL after all: the store would not open either; the advice stands without it.
  }
  return [
    `the store is the PostgreSQL database ${shown} (storage.url); linkpatrol backup copies SQLite stores only.`,
    "Back it up with PostgreSQL's own tools, e.g. (the password from PGPASSWORD or ~/.pgpass):",
    `  pg_dump --format=custom --file=linkpatrol.dump '${bare}'`,
    "and restore into an empty database with pg_restore --dbname=URL linkpatrol.dump. See docs/operations.md.",
  ].join("\n");
}

/** `linkpatrol backup FILE` */
export async function backupCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { force: { type: "boolean" } });
  if (values.help) {
    out(BACKUP_HELP);
    return EXIT_OK;
  }
  const [target, ...extra] = positionals;
  if (target === undefined) throw new UsageError("backup needs the FILE to write");
  rejectExtraArgs(extra);
  const { config } = loadConfig({ file: values.config });
  const refusal = postgresBackupRefusal(config.storage.url);
  if (refusal !== null) {
    err(`linkpatrol: ${refusal}`);
    return EXIT_USAGE;
  }
  if (config.storage.path === ":memory:") throw new UsageError("storage.path is :memory:; there is nothing on disk to back up");
  // A BackupError reaches main as "linkpatrol: <reason>" with exit 2.
  let report: Awaited<ReturnType<typeof backupStore>>;
  try {
    report = await backupStore(config.storage.path, target, { busyTimeoutMs: config.storage.busy_timeout, overwrite: values.force });
  } catch (error) {
    if (!(error instanceof BackupInterruptedError)) throw error;
    err(`linkpatrol: ${error.message}`);
    // Dies of the signal itself (backupStore has let go of it), at once: process.exit would first wait for the
    // copying thread, which may be inside SQLite for a long while yet, writing to the removed file.
    process.kill(process.pid, error.signal);
    process.exit(error.exitCode);
  }
  out(`backup written: ${target} (${report.bytes} bytes, schema version ${report.schemaVersion ?? "(none)"})`);
  return EXIT_OK;
}

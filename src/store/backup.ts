import { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A consistent copy of the store while the service keeps running: `VACUUM INTO` reads one snapshot (WAL lets
 * the service go on writing meanwhile) and writes a compact, self-contained database file. The copy is
 * written beside the target under a temporary name, checked, and only then renamed into place, so a failed or
 * interrupted backup never leaves a half-written file under the target's name. The copy holds webhook secrets,
 * so it is readable by its owner only (0600), from the moment it is created.
 */

export interface BackupReport {
  bytes: number;
  /** The newest migration the copy has applied (null for a store that was never migrated). */
  schemaVersion: string | null;
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

export function backupStore(sourcePath: string, targetPath: string, options: { busyTimeoutMs: number; overwrite?: boolean }): BackupReport {
  if (!existsSync(sourcePath)) throw new BackupError(`no database at ${sourcePath} (storage.path)`);
  if (existsSync(targetPath) && !options.overwrite) throw new BackupError(`${targetPath} exists; choose another name or pass --force`);
  if (!existsSync(dirname(targetPath))) throw new BackupError(`directory ${dirname(targetPath)} does not exist`);
  const partial = join(dirname(targetPath), `.${basename(targetPath)}.partial-${process.pid}`);
  rmSync(partial, { force: true });
  // VACUUM INTO writes into an existing empty file, keeping its mode whatever the umask.
  closeSync(openSync(partial, "wx", 0o600));

  // Never creates, never migrates: the new binary can back up an older store before upgrading it.
  const source = new Database(sourcePath, { readonly: true });
  try {
    source.exec(`PRAGMA busy_timeout = ${Math.floor(options.busyTimeoutMs)}`);
    source.query("VACUUM INTO ?").run(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new BackupError(`backup failed: ${(error as Error).message}`);
  } finally {
    source.close();
  }

  try {
    const schemaVersion = checkCopy(partial);
    renameSync(partial, targetPath);
    return { bytes: statSync(targetPath).size, schemaVersion };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** Opens the copy on its own and has SQLite check it; returns its schema version. */
function checkCopy(path: string): string | null {
  const copy = new Database(path, { readonly: true });
  try {
    const problems = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((row) => row.integrity_check);
    if (problems.join() !== "ok") throw new BackupError(`the copy failed SQLite's integrity check: ${problems.slice(0, 5).join("; ")}`);
    const migrated = copy.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'schema_migrations'").get()!.n > 0;
    if (!migrated) return null;
    return copy.query<{ tag: string }, []>("SELECT tag FROM schema_migrations ORDER BY tag DESC LIMIT 1").get()?.tag ?? null;
  } finally {
    copy.close();
  }
}

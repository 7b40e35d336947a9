/**
 * Entry point of the thread that writes a backup (store/backup.ts): the `VACUUM INTO` copy and SQLite's check
 * of it, both long for a big store. Off the main thread, so that thread stays free to answer a stop signal
 * meanwhile by removing the partial copy. One request, one answer, then the thread is done.
 */
import { Database } from "bun:sqlite";

/** What to copy where. */
export interface BackupCopyRequest {
  sourcePath: string;
  partialPath: string;
  busyTimeoutMs: number;
}

/** The copy's schema version, or why there is no usable copy. */
export type BackupCopyAnswer = { ok: true; schemaVersion: string | null } | { ok: false; message: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<BackupCopyRequest>) => {
  let answer: BackupCopyAnswer;
  try {
    copyStore(event.data);
    answer = { ok: true, schemaVersion: checkCopy(event.data.partialPath) };
  } catch (error) {
    answer = { ok: false, message: (error as Error).message };
  }
  self.postMessage(answer);
};

/** One snapshot of the store, compacted, into the (existing, empty) partial file. */
function copyStore({ sourcePath, partialPath, busyTimeoutMs }: BackupCopyRequest): void {
  // Never creates, never migrates: the new binary can back up an older store before upgrading it.
  const source = new Database(sourcePath, { readonly: true });
  try {
    source.exec(`PRAGMA busy_timeout = ${Math.floor(busyTimeoutMs)}`);
    // The copy can give deleted space back (store/sqlite.ts), even when the store it is made from cannot: restoring
    // it converts an old store (docs/operations.md, "Disk space"). Only asked of such a store: the source is left
    // as it is, and on one that has the mode already SQLite would write it again (refused on this connection).
    const mode = source.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()?.auto_vacuum;
    if (mode === 0) source.exec("PRAGMA auto_vacuum = INCREMENTAL");
    source.query("VACUUM INTO ?").run(partialPath);
  } catch (error) {
    throw new Error(`backup failed: ${(error as Error).message}`);
  } finally {
    source.close();
  }
}

/** Opens the copy on its own and has SQLite check it; returns its schema version. */
function checkCopy(path: string): string | null {
  const copy = new Database(path, { readonly: true });
  try {
    const problems = copy
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((row) => row.integrity_check);
    if (problems.join() !== "ok") throw new Error(`the copy failed SQLite's integrity check: ${problems.slice(0, 5).join("; ")}`);
    const migrated = copy.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'schema_migrations'").get()!.n > 0;
    if (!migrated) return null;
    return copy.query<{ tag: string }, []>("SELECT tag FROM schema_migrations ORDER BY tag DESC LIMIT 1").get()?.tag ?? null;
  } finally {
    copy.close();
  }
}

import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { constants } from "node:os";
import { basename, dirname, join } from "node:path";
import type { BackupCopyAnswer, BackupCopyRequest } from "./backup-worker.ts";

/**
 * A consistent copy of the store while the service keeps running: `VACUUM INTO` reads one snapshot (WAL lets
 * the service go on writing meanwhile) and writes a compact, self-contained database file. The copy is
 * written beside the target under a temporary name, checked, and only then renamed into place, so a failed or
 * interrupted backup never leaves a half-written file under the target's name, nor a partial copy (or SQLite's
 * journal of it) beside it, unless the process is killed outright (SIGKILL, a power cut). The copy holds webhook
 * secrets, so it is readable by its owner only (0600), from the moment it is created.
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

/** Signals that stop a backup: the partial copy is removed before the process ends. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** A backup stopped by a signal; its partial copy is already removed. `exitCode` is the shell's 128 + n. */
export class BackupInterruptedError extends BackupError {
  readonly exitCode: number;
  constructor(readonly signal: (typeof STOP_SIGNALS)[number]) {
    super(`backup interrupted by ${signal}; the partial copy was removed`);
    this.name = "BackupInterruptedError";
    this.exitCode = 128 + constants.signals[signal];
  }
}

/**
 * Writes the checked copy of the store at `sourcePath` to `targetPath`. The copy runs in a worker thread
 * (store/backup-worker.ts) so that a stop signal is answered at once: it rejects with BackupInterruptedError,
 * and the caller should end the process then, as the thread may still be inside SQLite.
 */
export async function backupStore(sourcePath: string, targetPath: string, options: { busyTimeoutMs: number; overwrite?: boolean }): Promise<BackupReport> {
  if (!existsSync(sourcePath)) throw new BackupError(`no database at ${sourcePath} (storage.path)`);
  if (existsSync(targetPath) && !options.overwrite) throw new BackupError(`${targetPath} exists; choose another name or pass --force`);
  if (!existsSync(dirname(targetPath))) throw new BackupError(`directory ${dirname(targetPath)} does not exist`);
  const partial = join(dirname(targetPath), `.${basename(targetPath)}.partial-${process.pid}`);
  let interrupt: (signal: (typeof STOP_SIGNALS)[number]) => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    interrupt = (signal) => {
      removeCopy(partial);
      reject(new BackupInterruptedError(signal));
    };
  });
  const handlers = STOP_SIGNALS.map((signal) => [signal, () => interrupt(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  let renamed = false;
  try {
    removeCopy(partial);
    // VACUUM INTO writes into an existing empty file, keeping its mode whatever the umask.
    closeSync(openSync(partial, "wx", 0o600));
    const schemaVersion = await Promise.race([copyInWorker({ sourcePath, partialPath: partial, busyTimeoutMs: options.busyTimeoutMs }), interrupted]);
    renameSync(partial, targetPath);
    renamed = true;
    return { bytes: statSync(targetPath).size, schemaVersion };
  } finally {
    // Every way out but the rename: the partial copy goes, with whatever SQLite left beside it.
    if (!renamed) removeCopy(partial);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

/** SQLite's side files of a database: a copy that failed half-way may leave its rollback journal. */
const SIDE_FILES = ["", "-journal", "-wal", "-shm"];

/** Removes a partial copy and its side files; missing ones are fine. */
function removeCopy(partial: string): void {
  for (const suffix of SIDE_FILES) rmSync(`${partial}${suffix}`, { force: true });
}

/** The worker's entry: the bundled module in a compiled binary, the source file otherwise. */
function workerEntry(): string {
  return import.meta.url.includes("/$bunfs/") ? "./store/backup-worker.ts" : new URL("./backup-worker.ts", import.meta.url).href;
}

/** Runs the copy and its check in a worker thread; resolves with the copy's schema version. */
function copyInWorker(request: BackupCopyRequest): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry());
    let answered = false;
    worker.onmessage = (event: MessageEvent<BackupCopyAnswer>) => {
      answered = true;
      void worker.terminate();
      if (event.data.ok) resolve(event.data.schemaVersion);
      else reject(new BackupError(event.data.message));
    };
    worker.onerror = (event) => {
      answered = true;
      void worker.terminate();
      reject(new BackupError(`backup failed: ${event.message}`));
    };
    worker.addEventListener("close", () => {
      if (!answered) reject(new BackupError("backup failed: the copying thread exited"));
    });
    worker.postMessage(request);
  });
}

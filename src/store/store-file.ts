import { statSync } from "node:fs";

/**
 * The store's file as a process opened it: an open SQLite connection keeps reading and writing the file it opened
 * even after that file was deleted, renamed or replaced by another one, so every write would be acknowledged and
 * then lost with the unlinked file. Comparing the path's device and inode with those of the opened file tells;
 * one stat, about 2 µs (bench/README.md, "What a write pays to check the store's file"), so writers ask before
 * they acknowledge (docs/decisions.md, "A store file deleted, moved or replaced under a running service").
 */

/** Which file a path named when it was opened: device and inode (bigint: inode numbers may pass 2^53). */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** The identity of the file at `path` now, or null when nothing is there. */
export function fileIdentityOf(path: string): FileIdentity | null {
  try {
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    return stat === undefined ? null : { dev: stat.dev, ino: stat.ino };
  } catch (error) {
    // A path through something that is no longer a directory names nothing either.
    if ((error as { code?: string }).code === "ENOTDIR") return null;
    throw error;
  }
}

/** What became of the opened file's path: still it, gone (deleted or moved away), or another file. */
export type StoreFileState = "same" | "gone" | "replaced";

/** Compares the path's file now with the one opened. */
export function storeFileState(path: string, opened: FileIdentity): StoreFileState {
  let now: FileIdentity | null;
  try {
    now = fileIdentityOf(path);
  } catch {
    // A directory this process may no longer search: no new connection could open the file through the path.
    return "gone";
  }
  if (now === null) return "gone";
  return now.dev === opened.dev && now.ino === opened.ino ? "same" : "replaced";
}

/** The store file was deleted, moved or replaced under a process that has it open: its writes would be lost. */
export class StoreFileLostError extends Error {
  constructor(
    readonly path: string,
    readonly state: Exclude<StoreFileState, "same">,
  ) {
    super(describeLostStore(path, state));
    this.name = "StoreFileLostError";
  }
}

/** The lost store in words, naming the file and what to do. */
export function describeLostStore(path: string, state: Exclude<StoreFileState, "same">): string {
  const what = state === "gone" ? "was deleted or moved away" : "was replaced by another file";
  return `the store ${path} ${what} while the service ran: writes are refused, since they would go to the file it opened and be lost; stop the service, put the store back (or restore a backup) and start it again (docs/operations.md, "A store file deleted, moved or replaced")`;
}

/** The store file a running process opened; `problem` says whether its path still names it. */
export class StoreFile {
  constructor(
    readonly path: string,
    readonly opened: FileIdentity,
  ) {}

  /** Opens nothing: the identity of the file at `path` now, to watch it (null for ":memory:" or a missing file). */
  static watch(path: string): StoreFile | null {
    if (path === ":memory:") return null;
    const identity = fileIdentityOf(path);
    return identity === null ? null : new StoreFile(path, identity);
  }

  /** Null while the path still names the opened file; else what happened, naming the file. */
  problem(): string | null {
    const state = storeFileState(this.path, this.opened);
    return state === "same" ? null : describeLostStore(this.path, state);
  }

  /** Throws StoreFileLostError unless the path still names the opened file. */
  assertSame(): void {
    const state = storeFileState(this.path, this.opened);
    if (state !== "same") throw new StoreFileLostError(this.path, state);
  }
}

/**
 * Errors that mean the store cannot take writes right now (the disk holding it is full, or writing to it
 * fails), told apart from bugs by SQLite's own result code. Work that meets one pauses and tries again later
 * instead of failing or retrying at once: freeing space is the operator's move, and nothing is lost meanwhile.
 */

/** Why the store refused a write. */
export type StoreWriteFailure = "disk_full" | "io_error";

/** The kind of store write failure `error` is, or null when it is something else. */
export function storeWriteFailure(error: unknown): StoreWriteFailure | null {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  if (code === "SQLITE_FULL") return "disk_full";
  // SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE…: a file-size limit, a failing disk, a read-only remount.
  if (code.startsWith("SQLITE_IOERR")) return "io_error";
  return null;
}

/** The failure in words, naming the store file. */
export function describeStoreWriteFailure(failure: StoreWriteFailure, path: string): string {
  return failure === "disk_full"
    ? `the disk holding the store ${path} is full`
    : `the store ${path} cannot be written (disk I/O error)`;
}

import { StoreUnavailableError } from "../core/errors.ts";
import { failureKind } from "./postgres/postgres-health.ts";
import { StoreFileLostError } from "./store-file.ts";

/**
 * Errors that mean the store cannot take writes right now (the disk holding it is full, writing to it fails, or
 * its file was deleted, moved or replaced under the process), told apart from bugs by SQLite's own result code or
 * by the store's own error. Work that meets one pauses and tries again later instead of failing or retrying at
 * once: freeing space or putting the file back is the operator's move, and nothing is lost meanwhile.
 */

/** Why the store refused a write. */
export type StoreWriteFailure = "disk_full" | "io_error" | "file_lost" | "unreachable";

/** The kind of store write failure `error` is, or null when it is something else. */
export function storeWriteFailure(error: unknown): StoreWriteFailure | null {
  if (error instanceof StoreFileLostError) return "file_lost";
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  if (code === "SQLITE_FULL") return "disk_full";
  // SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE…: a file-size limit, a failing disk, a read-only remount.
  if (code.startsWith("SQLITE_IOERR")) return "io_error";
  // A PostgreSQL store: the connection lost, the server shutting down, out of space or read-only.
  if (failureKind(error) !== null) return "unreachable";
  return null;
}

/** The failure in words, naming the store file. */
export function describeStoreWriteFailure(failure: StoreWriteFailure, path: string): string {
  switch (failure) {
    case "disk_full":
      return `the disk holding the store ${path} is full`;
    case "io_error":
      return `the store ${path} cannot be written (disk I/O error)`;
    case "file_lost":
      return `the store ${path} was deleted, moved or replaced while the service ran`;
    case "unreachable":
      return `the store ${path} could not be reached, or refused the write`;
  }
}

/** What a client is told about `failure` (API and dashboard): the cause without the file's name. */
export function storeUnavailable(failure: StoreWriteFailure): StoreUnavailableError {
  switch (failure) {
    case "disk_full":
      return new StoreUnavailableError("the disk holding the store is full; nothing was changed, reads still work: try again later");
    case "io_error":
      return new StoreUnavailableError("the store cannot be written; nothing was changed, reads still work: try again later");
    case "file_lost":
      return new StoreUnavailableError(
        "the store's file was deleted, moved or replaced while the service ran: writes are refused until the operator puts it back and restarts the service; reads still work",
      );
    case "unreachable":
      return new StoreUnavailableError("the store's database could not be reached, or refused the write; nothing was changed: try again later");
  }
}

import type { Database } from "bun:sqlite";
import type { Logger } from "../core/logger.ts";
import type { StoreFile } from "./store-file.ts";

/**
 * Looks at the store's path once a second while the service runs, and acts when the file it opened is no longer
 * there: says so once in the log, and empties the WAL into the opened file. The WAL (`STORE-wal`) is named after
 * the path, not the file: left full, its frames would be read into whatever database is next opened at that path
 * (another store put there, a new one), and a store moved away would lack its last commits. SQLite itself no
 * longer checkpoints on close once the file has moved, so `close` empties it last. Writers check the file
 * themselves before they write (store/store-file.ts); this only keeps the WAL empty while the file is lost.
 */

const INTERVAL_MS = 1_000;

export class StoreWatch {
  private timer: ReturnType<typeof setInterval> | null = null;
  private lost: string | null = null;

  constructor(
    private readonly sqlite: Database,
    private readonly file: StoreFile,
    private readonly logger: Logger,
  ) {}

  /** Starts looking, once a second. */
  start(): void {
    this.timer ??= setInterval(() => this.check(), INTERVAL_MS);
    this.timer.unref?.();
  }

  /** Stops looking; when the file is lost, empties the WAL one last time (call before closing the store). */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.check();
  }

  private check(): void {
    const problem = this.file.problem();
    if (problem !== this.lost) {
      if (problem !== null) this.logger.error("store file lost: writes are refused", { reason: problem });
      else this.logger.info("store file back: writes are taken again", { path: this.file.path });
      this.lost = problem;
    }
    if (problem !== null) this.emptyWal();
  }

  /** Moves the WAL's frames into the opened file (through its descriptor) and truncates the WAL. */
  private emptyWal(): void {
    try {
      // Busy while a crawl worker still reads: the next look tries again.
      this.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (error) {
      this.logger.warn("could not empty the lost store's WAL", { path: this.file.path, error: String(error) });
    }
  }
}

import type { Database, Statement } from "bun:sqlite";
import { accessSync, closeSync, constants, openSync, readSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { describeFailure } from "./sqlite.ts";
import type { StoreFile } from "./store-file.ts";

/**
 * Whether the store can serve, cheaply enough for every /healthz: SQLite's page cache keeps answering reads of a
 * file that was overwritten or replaced, and a file that turned read-only is only noticed at the next write, so
 * the checks look at the file itself (same file as opened, still a SQLite header, still writable) and remember
 * the last operation that failed for a reason of the store's own (I/O, read-only, full, damaged). That failure
 * holds until a write succeeds again (this connection's change count or another connection's commits move).
 * `PRAGMA quick_check` would read every page: seconds on a large store (docs/decisions.md).
 */

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");
/** Less free space than this on the store's file system and writes (crawls, deliveries) are about to fail. */
const MIN_FREE_BYTES = 1024 * 1024;

/** Error codes (bun:sqlite's `code`, extended codes included) that say the store failed, not the request. */
const STORE_FAILURE = /^SQLITE_(IOERR|READONLY|FULL|CORRUPT|NOTADB|CANTOPEN)/;

export class StoreHealth {
  readonly engine = "sqlite";
  private readonly changes: Statement<unknown, []>;
  private readonly others: Statement<unknown, []>;
  private failure: { reason: string; changes: unknown; others: unknown } | null = null;

  /** `file`: the store file as opened (null for ":memory:"). */
  constructor(
    private readonly sqlite: Database,
    private readonly path: string,
    private readonly file: StoreFile | null,
  ) {
    this.changes = sqlite.prepare("SELECT total_changes()");
    this.others = sqlite.prepare("PRAGMA data_version");
  }

  /** Remembers `error` when it says the store itself failed; any other error is ignored. */
  noteFailure(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== "string" || !STORE_FAILURE.test(code)) return;
    try {
      this.failure = { reason: `the last operation on the store ${this.path} failed: ${describeFailure(this.path, error)}`, ...this.counters() };
    } catch {
      this.failure = { reason: `the store ${this.path} failed: ${describeFailure(this.path, error)}`, changes: null, others: null };
    }
  }

  /** Null when the store looks usable, else what is wrong with it (naming the file). */
  problem(): string | null {
    const fileProblem = this.fileProblem();
    if (fileProblem !== null) return fileProblem;
    try {
      // query() rather than a statement kept from the start: a kept statement still answers on a closed connection.
      this.sqlite.query("SELECT tag FROM schema_migrations ORDER BY tag DESC LIMIT 1").values();
      if (this.failure !== null) {
        const now = this.counters();
        // A write of this connection or a commit of another one has succeeded since: the store takes writes.
        if (now.changes !== this.failure.changes || now.others !== this.failure.others) this.failure = null;
      }
    } catch (error) {
      return `the store ${this.path} cannot be read: ${describeFailure(this.path, error)}`;
    }
    return this.failure?.reason ?? null;
  }

  private counters(): { changes: unknown; others: unknown } {
    return { changes: this.changes.values()[0]![0], others: this.others.values()[0]![0] };
  }

  private fileProblem(): string | null {
    if (this.file === null) return null;
    const lost = this.file.problem();
    if (lost !== null) return lost;
    let header: Buffer;
    try {
      header = Buffer.alloc(SQLITE_HEADER.length);
      const fd = openSync(this.path, "r");
      try {
        readSync(fd, header, 0, header.length, 0);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return `the store ${this.path} cannot be read: ${(error as Error).message}`;
    }
    if (!header.equals(SQLITE_HEADER)) return `the store ${this.path} is not a SQLite database any more (its header was overwritten)`;
    try {
      // EROFS on a read-only mount, EPERM for an immutable file, EACCES for the service user without write permission.
      accessSync(this.path, constants.W_OK);
    } catch (error) {
      return `the store ${this.path} cannot be written: ${(error as Error).message}`;
    }
    const disk = statfsSync(dirname(this.path));
    const free = disk.bavail * disk.bsize;
    if (free < MIN_FREE_BYTES) {
      return `the disk holding the store ${this.path} is full (${Math.floor(free / 1024)} KiB free): crawls are paused and writes refused until space is freed`;
    }
    return null;
  }
}

import type { Db } from "../db.ts";

/**
 * The PostgreSQL store's version token, as store/store-version.ts is SQLite's: the server's MVCC snapshot
 * (`pg_current_snapshot()`: the oldest running transaction, the next one, those running between). A transaction
 * that wrote anything, on any node, changes it when it commits (it leaves the running list or moves the next
 * one), and two equal snapshots see exactly the same rows, so what is read and kept while the token stays equal
 * is what reading again would give. Transactions that only read take no transaction id and change nothing.
 *
 * A read costs a round trip, so callers share them: a caller joins the read that starts after it asked (never
 * one already under way, whose snapshot may predate a write the caller has seen acknowledged), so at most one
 * read runs and one waits, whatever the request rate (docs/decisions.md, "Answers kept on PostgreSQL").
 */
export class SnapshotVersion {
  private running: Promise<string> | null = null;
  private queued: Promise<string> | null = null;

  constructor(private readonly db: Db) {}

  /** The token as of a moment after this call. */
  current(): Promise<string> {
    if (this.running === null) return this.start();
    this.queued ??= this.running.then(settled, settled).then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<string> {
    const read = this.db.get<{ snapshot: string }>("SELECT CAST(pg_current_snapshot() AS text) AS snapshot").then((row) => row!.snapshot);
    this.running = read;
    // Registered before any queued caller's continuation, so the next read starts with this one cleared.
    const clear = () => {
      if (this.running === read) this.running = null;
    };
    read.then(clear, clear);
    return read;
  }
}

function settled(): void {}

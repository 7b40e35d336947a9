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
  /** The callers that asked while a read was under way: they share the read sent the moment that one ends. */
  private next: PromiseWithResolvers<string> | null = null;

  constructor(private readonly db: Db) {}

  /** The token as of a moment after this call. */
  current(): Promise<string> {
    if (this.running === null) return this.start();
    this.next ??= Promise.withResolvers<string>();
    return this.next.promise;
  }

  private start(): Promise<string> {
    const read = this.db.get<{ snapshot: string }>("SELECT CAST(pg_current_snapshot() AS text) AS snapshot").then((row) => row!.snapshot);
    this.running = read;
    // Registered before any caller's continuation, so the next read is on its way before the callers this one
    // releases run: a busy API thread otherwise sent it only after them, and every token read took that long.
    const ended = () => {
      this.running = null;
      const waiting = this.next;
      if (waiting === null) return;
      this.next = null;
      this.start().then(waiting.resolve, waiting.reject);
    };
    read.then(ended, ended);
    return read;
  }
}

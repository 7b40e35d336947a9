import type { Database, Statement } from "bun:sqlite";

/**
 * A token that changes whenever anything is committed to the store: by this connection (its total change
 * count moves) or by any other (SQLite's `data_version` moves: the crawl workers, a CLI command such as
 * `linkpatrol keys revoke`). What is read from the store and kept while the token stays the same is exactly
 * what reading again would give, so caches keyed on it are never stale.
 *
 * `data_version` is read once per turn of the event loop (every request of a turn shares it, as if they had
 * all arrived at its start); this connection's own count is read every time, so a request always sees the
 * writes of the requests before it. Together about a microsecond per request.
 */
export class StoreVersion {
  private readonly othersStatement: Statement<unknown, []>;
  private readonly ownStatement: Statement<unknown, []>;
  private others: unknown = null;

  constructor(sqlite: Database) {
    this.othersStatement = sqlite.prepare("PRAGMA data_version");
    this.ownStatement = sqlite.prepare("SELECT total_changes()");
  }

  /** The current token. */
  current(): string {
    if (this.others === null) {
      this.others = this.othersStatement.values()[0]![0];
      setImmediate(() => {
        this.others = null;
      });
    }
    return `${this.others}.${this.ownStatement.values()[0]![0]}`;
  }
}

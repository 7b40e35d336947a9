import type { Database, Statement } from "bun:sqlite";

/**
 * A token that changes whenever anything is committed to the store: by this connection (its total change
 * count moves) or by any other (SQLite's `data_version` moves: the crawl workers, a CLI command such as
 * `linkpatrol keys revoke`). What is read from the store and kept while the token stays the same is exactly
 * what reading again would give, so caches keyed on it are never stale. Reading it costs about a microsecond.
 */
export class StoreVersion {
  private readonly statement: Statement<{ own: number; others: number }, []>;

  constructor(sqlite: Database) {
    this.statement = sqlite.prepare("SELECT total_changes() AS own, data_version AS others FROM pragma_data_version");
  }

  /** The current token. */
  current(): string {
    const { own, others } = this.statement.get()!;
    return `${others}.${own}`;
  }
}

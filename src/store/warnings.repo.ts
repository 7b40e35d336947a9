import type { Database } from "bun:sqlite";
import type { WarningCause, WarningEntry } from "../core/crawl-warnings.ts";

/**
 * A crawl's warnings, aggregated per cause (core/crawl-warnings.ts decides what an entry holds and the budget it
 * keeps to): read whole, written whole. A crawl has at most a few dozen rows of a few KiB, so replacing them is
 * cheaper than merging in SQL, and only the crawl detail, the end events and `check` read them.
 */

type RawEntry = { cause: WarningCause; message: string; count: number; samples: string };

export class WarningsRepo {
  constructor(private readonly sqlite: Database) {}

  /** The crawl's warning entries, in the order their causes were first found. */
  entries(crawlId: string): WarningEntry[] {
    return this.sqlite
      .query<RawEntry, [string]>("SELECT cause, message, count, samples FROM crawl_warnings WHERE crawl_id = ?1 ORDER BY position")
      .all(crawlId)
      .map((raw) => ({ ...raw, samples: JSON.parse(raw.samples) as string[] }));
  }

  /** Replaces the crawl's entries; run inside the caller's transaction. */
  replace(crawlId: string, entries: readonly WarningEntry[]): void {
    this.sqlite.query("DELETE FROM crawl_warnings WHERE crawl_id = ?1").run(crawlId);
    const insert = this.sqlite.query("INSERT INTO crawl_warnings (crawl_id, position, cause, message, count, samples) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    entries.forEach((entry, position) => {
      insert.run(crawlId, position, entry.cause, entry.message, entry.count, JSON.stringify(entry.samples));
    });
  }
}

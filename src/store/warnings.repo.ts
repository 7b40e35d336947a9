import type { WarningCause, WarningEntry } from "../core/crawl-warnings.ts";
import type { Db } from "./db.ts";

/**
 * A crawl's warnings, aggregated per cause (core/crawl-warnings.ts decides what an entry holds and the budget it
 * keeps to): read whole, written whole. A crawl has at most a few dozen rows of a few KiB, so replacing them is
 * cheaper than merging in SQL, and only the crawl detail, the end events and `check` read them.
 */

type RawEntry = { cause: WarningCause; message: string; count: number; samples: string };

export class WarningsRepo {
  constructor(private readonly db: Db) {}

  /** The crawl's warning entries, in the order their causes were first found. */
  async entries(crawlId: string): Promise<WarningEntry[]> {
    const rows = await this.db.all<RawEntry>("SELECT cause, message, count, samples FROM crawl_warnings WHERE crawl_id = $crawl ORDER BY position", {
      crawl: crawlId,
    });
    return rows.map((raw) => ({ ...raw, samples: JSON.parse(raw.samples) as string[] }));
  }

  /** Replaces the crawl's entries; run it on the Db of the caller's transaction. */
  async replace(crawlId: string, entries: readonly WarningEntry[]): Promise<void> {
    const tx = this.db;
    await tx.run("DELETE FROM crawl_warnings WHERE crawl_id = $crawl", { crawl: crawlId });
    for (const [position, entry] of entries.entries()) {
      await tx.run(
        "INSERT INTO crawl_warnings (crawl_id, position, cause, message, count, samples) VALUES ($crawl, $position, $cause, $message, $count, $samples)",
        {
          crawl: crawlId,
          position,
          cause: entry.cause,
          message: entry.message,
          count: entry.count,
          samples: JSON.stringify(entry.samples),
        },
      );
    }
  }
}

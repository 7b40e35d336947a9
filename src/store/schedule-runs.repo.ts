import type { Db } from "./db.ts";

/**
 * Scheduled runs fired (issue 43): every node's scheduler wakes at a recurring crawl's due time, and the one whose
 * insert of (domain, due time) makes the row starts the crawl; the others find it there and do nothing. The row is
 * the record that the run fired, not the crawl (which may still be refused, e.g. a crawl already running).
 */

export interface ScheduleRun {
  domain_id: string;
  due_at: string;
  node: string;
  fired_at: string;
}

export class ScheduleRunsRepo {
  constructor(private readonly db: Db) {}

  /** True for exactly one caller per (domain, due time), across every node: that caller fires the run. */
  async fireOnce(domainId: string, dueAt: Date, node: string): Promise<boolean> {
    const result = await this.db.run("INSERT INTO schedule_runs (domain_id, due_at, node) VALUES ($domainId, $dueAt, $node) ON CONFLICT DO NOTHING", {
      domainId,
      dueAt: dueAt.toISOString(),
      node,
    });
    return result.changes > 0;
  }

  /** The runs of a domain fired, newest first. */
  async ofDomain(domainId: string, limit: number): Promise<ScheduleRun[]> {
    return this.db.all<ScheduleRun>(
      "SELECT domain_id, due_at, node, fired_at FROM schedule_runs WHERE domain_id = $domainId ORDER BY due_at DESC LIMIT $limit",
      { domainId, limit },
    );
  }

  /** Forgets runs due before `before` (a due time that far back never fires again): how many went. */
  async pruneBefore(before: Date): Promise<number> {
    return (await this.db.run("DELETE FROM schedule_runs WHERE due_at < $before", { before: before.toISOString() })).changes;
  }
}

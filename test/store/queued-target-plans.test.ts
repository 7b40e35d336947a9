import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Bindings } from "../../src/store/db.ts";
import { FrontierRepo } from "../../src/store/frontier.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";
import { overLoops, planNodes, planOf } from "../helpers/query-plans.ts";
import { type RanStatement, recordingDb } from "../helpers/recording-db.ts";

/**
 * On PostgreSQL a batch's changes to queued targets reach each row through the primary key, whatever the
 * statistics say. Statistics taken when a crawl ended know no queued target, and told `state = 'queued'` the
 * planner expected one row, scanned the whole table and compared every row with every changed one: 340 ms a
 * statement at the start of a re-audit of a 3,000-page site, where the key takes 4 ms (docs/decisions.md, "A
 * re-audit on PostgreSQL"). The plans' work is counted with EXPLAIN ANALYZE (rows compared), not timed.
 */

const postgres = DIALECTS.find((dialect) => dialect.name === "postgres")!;
const TARGETS = 5_000;

/** The rows a plan's joins compared and threw away (EXPLAIN ANALYZE's "Rows Removed by Join Filter", every loop): the work of comparing every row with every other. */
function rowsRemovedByJoins(plan: unknown): number {
  return planNodes(plan).reduce((sum, node) => sum + overLoops(node, "Rows Removed by Join Filter"), 0);
}

describe.skipIf(!postgres.available)("a batch's changes to queued targets on PostgreSQL", () => {
  let store: TestDb;
  let ids: number[];
  beforeAll(async () => {
    store = await postgres.open();
    const db = store.db;
    await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
    await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'running', '{}', '2026-01-01')");
    await db.run(
      `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url)
       SELECT 'c1', 'http://example.test/' || n, 1, 1, 'done', 200, 0, 'http://example.test/' || n FROM generate_series(1, ${TARGETS}) AS n`,
    );
    // The statistics of a crawl that ended: no target queued. Then the next crawl's targets wait, unanalyzed.
    await db.run("ANALYZE crawl_targets");
    await db.run("UPDATE crawl_targets SET state = 'queued', status_code = NULL, is_broken = NULL, final_url = NULL");
    ids = (await db.all<{ id: number }>("SELECT id FROM crawl_targets ORDER BY id LIMIT 200")).map((row) => Number(row.id));
  }, 60_000);
  afterAll(() => store?.close());

  /** Runs `text` under EXPLAIN ANALYZE with every target queued again first, as the next crawl's are. */
  const analyzed = async (text: string, params: Bindings | undefined) => {
    await store.db.run("UPDATE crawl_targets SET state = 'queued'");
    return planOf(store.db, text, params, true);
  };

  test("the trap is real here: compared with a constant state, the join compares every changed target with every queued one", async () => {
    const rows = ids.map((id) => `(CAST(${id} AS bigint), CAST('done' AS text))`).join(", ");
    const naive = `WITH v (id, state) AS (VALUES ${rows}) UPDATE crawl_targets SET state = v.state FROM v WHERE crawl_targets.id = v.id AND crawl_targets.state = 'queued'`;
    expect(rowsRemovedByJoins(await analyzed(naive, undefined))).toBeGreaterThan(ids.length * (TARGETS / 2));
  });

  test("the batch's statement finds each changed target without comparing it with the others, and changes only queued ones", async () => {
    const seen: RanStatement[] = [];
    const repo = new FrontierRepo(recordingDb(store.db, seen, ["run"]));
    // (id, as_page, state, status_code, is_broken, error, warning, final_url) per target
    const changes = ids.flatMap((id) => [id, 0, "done", 200, 0, null, null, `http://example.test/done-${id}`]);
    await store.db.run("UPDATE crawl_targets SET state = 'queued'");
    expect(await repo.updateQueuedTargets(changes)).toBe(ids.length);
    // Done now, so not queued: changed again, they are left as they are.
    expect(await repo.updateQueuedTargets(changes.slice(0, 8))).toBe(0);
    const updates = seen.filter((statement) => /UPDATE crawl_targets/.test(statement.text));
    expect(updates.length).toBe(2);
    for (const statement of updates) expect(rowsRemovedByJoins(await analyzed(statement.text, statement.params))).toBeLessThanOrEqual(ids.length);
  });
});

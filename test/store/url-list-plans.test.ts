import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FrontierRepo } from "../../src/store/frontier.repo.ts";
import { OpenLinksRepo } from "../../src/store/open-links.repo.ts";
import { PageReuseRepo } from "../../src/store/page-reuse.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";
import { overLoops, planNodes, planOf } from "../helpers/query-plans.ts";
import { type RanStatement, recordingDb } from "../helpers/recording-db.ts";

/**
 * On PostgreSQL the statements that ask about a list of URLs at once (a batch's broken targets, a pull's stored
 * pages, the open links' targets and pages) reach each URL through the (crawl_id, url) index. Written as `url IN
 * (a JSON list)`, the planner hashed the list and scanned every row of the crawl: ~10 ms a statement against
 * ~1 ms, a thousand times a re-audit (docs/decisions.md, "A re-audit on PostgreSQL"). The plans' work is counted
 * with EXPLAIN ANALYZE (rows read), not timed.
 */

const postgres = DIALECTS.find((dialect) => dialect.name === "postgres")!;
const ROWS = 5_000;
const ASKED = ["http://example.test/7", "http://example.test/4242", "http://example.test/absent"];

/** The rows a plan read from `tables` (returned or filtered out, every loop): a scan of the crawl reads them all. */
function rowsRead(plan: unknown, tables: readonly string[]): number {
  return planNodes(plan)
    .filter((node) => tables.includes(String(node["Relation Name"])))
    .reduce((sum, node) => sum + overLoops(node, "Actual Rows") + overLoops(node, "Rows Removed by Filter"), 0);
}

describe.skipIf(!postgres.available)("statements about a list of URLs on PostgreSQL", () => {
  let store: TestDb;
  beforeAll(async () => {
    store = await postgres.open();
    const db = store.db;
    await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
    await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'completed', '{}', '2026-01-01')");
    await db.run(
      `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url)
       SELECT 'c1', 'http://example.test/' || n, 1, 1, 'done', 200, 0, 'http://example.test/' || n FROM generate_series(1, ${ROWS}) AS n`,
    );
    await db.run(
      `INSERT INTO crawl_pages (crawl_id, url, body_hash, body_bytes, links_found, first_link_id, link_count)
       SELECT 'c1', 'http://example.test/' || n, 'h', 100, 0, 1, 0 FROM generate_series(1, ${ROWS}) AS n`,
    );
    await db.run("ANALYZE crawl_targets");
    await db.run("ANALYZE crawl_pages");
  }, 60_000);
  afterAll(() => store?.close());

  const analyzed = (statement: RanStatement) => planOf(store.db, statement.text, statement.params, true);

  test("the trap is real here: `url IN` a JSON list reads every target of the crawl", async () => {
    const plan = await analyzed({
      text: "SELECT url FROM crawl_targets WHERE crawl_id = $crawl AND url IN (SELECT json_array_elements_text(CAST($urls AS text)::json))",
      params: { crawl: "c1", urls: JSON.stringify(ASKED) },
    });
    expect(rowsRead(plan, ["crawl_targets"])).toBeGreaterThanOrEqual(ROWS);
  });

  test("each repo's statement reads only the URLs asked for, and answers for them", async () => {
    const seen: RanStatement[] = [];
    const db = recordingDb(store.db, seen, ["all"]);
    const open = new OpenLinksRepo(db);
    expect(await open.openSources("c1", ASKED)).toEqual([]);
    expect([...(await open.targets("c1", ASKED)).keys()].sort()).toEqual(ASKED.slice(0, 2).sort());
    expect([...(await open.pages("c1", ASKED)).keys()].sort()).toEqual(ASKED.slice(0, 2).sort());
    expect([...(await new FrontierRepo(db).claimedPages("c1", ASKED))].sort()).toEqual(ASKED.slice(0, 2).sort());
    await new PageReuseRepo(db).pages("c1", ASKED);
    expect(seen).toHaveLength(5);
    for (const statement of seen) expect(rowsRead(await analyzed(statement), ["crawl_targets", "crawl_pages"])).toBeLessThanOrEqual(4 * ASKED.length);
  });
});

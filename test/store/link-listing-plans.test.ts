import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Bindings } from "../../src/store/db.ts";
import { LinksRepo } from "../../src/store/links.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";
import { planNodes, planOf } from "../helpers/query-plans.ts";
import { type RanStatement, recordingDb } from "../helpers/recording-db.ts";

/**
 * On PostgreSQL a crawl's link listing is read through the links' (crawl_id, id) index, whatever the statistics
 * say. Told `crawl_id = $c AND id > $a ORDER BY id LIMIT n`, the planner walked the primary key from `$a` and
 * filtered, as if a crawl's links were spread evenly over the ids: for a crawl whose links follow another's,
 * page 1 walked every link of the other first (532,857 of them for the API mix's running crawl: 161 ms a page,
 * where the index takes 0.7 ms; bench/README.md, "sixth session"). The plans are read with EXPLAIN, not timed.
 */

const postgres = DIALECTS.find((dialect) => dialect.name === "postgres")!;
const LINKS_EACH = 20_000;

/** The names of the indexes a plan scans `links` through, and whether it reads the table without one. */
function linksAccess(plan: unknown): string[] {
  return planNodes(plan)
    .filter((node) => node["Relation Name"] === "links")
    .map((node) => String(node["Index Name"] ?? node["Node Type"]));
}

describe.skipIf(!postgres.available)("a crawl's link listing on PostgreSQL", () => {
  let store: TestDb;
  beforeAll(async () => {
    store = await postgres.open();
    const db = store.db;
    await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
    // The earlier crawl's links take the lower ids, the later one's all come after them: the API mix's report and
    // running crawls. Equal shares, so the statistics say either crawl is half of every id range.
    for (const [id, day] of [
      ["earlier", 1],
      ["later", 2],
    ] as const) {
      await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ($id, 'd1', 'completed', '{}', $createdAt)", {
        id,
        createdAt: `2026-01-0${day}`,
      });
      await db.run(
        `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url)
         VALUES ($id, 'http://example.test/', 1, 0, 'done', 200, 0, 'http://example.test/')`,
        { id },
      );
      await db.run(
        `INSERT INTO links (crawl_id, source_url, target_id, link_text, kind)
         SELECT $id, 'http://example.test/', (SELECT t.id FROM crawl_targets t WHERE t.crawl_id = $id), 'link ' || n, 'anchor'
         FROM generate_series(1, ${LINKS_EACH}) AS n`,
        { id },
      );
    }
    await db.run("ANALYZE links");
    await db.run("ANALYZE crawl_targets");
  }, 60_000);
  afterAll(() => store?.close());

  const plan = async (text: string, params: Bindings | undefined) => planOf(store.db, text, params);

  test("the trap is real here: the plain form walks the primary key for the later crawl's first page", async () => {
    const naive = `SELECT l.id FROM links l JOIN crawl_targets t ON t.id = l.target_id
      WHERE l.crawl_id = $crawlId AND t.state = 'done' AND l.id > $afterId ORDER BY l.id LIMIT 100`;
    expect(linksAccess(await plan(naive, { crawlId: "later", afterId: 0 }))).toEqual(["links_pkey"]);
  });

  test("first and deep pages, the positions deep pages start from, and the whole-crawl stream read the crawl's links through its index", async () => {
    const seen: RanStatement[] = [];
    const repo = new LinksRepo(recordingDb(store.db, seen, ["all", "get"]));
    const crawl = { id: "later", status: "running" as const };
    const first = await repo.page(crawl, {}, 0, 100);
    const deep = await repo.page(crawl, {}, 15_050, 100);
    expect(first.map((link) => link.link_text)).toEqual(Array.from({ length: 100 }, (_, i) => `link ${i + 1}`));
    expect(deep.map((link) => link.link_text)).toEqual(Array.from({ length: 100 }, (_, i) => `link ${15_051 + i}`));
    for await (const links of repo.each(crawl.id)) expect(links.length).toBeGreaterThan(0);
    const listings = seen.filter((statement) => /FROM links\b/.test(statement.text));
    // page 1, the positions' slices, the deep page, and the stream's batches
    expect(listings.length).toBeGreaterThan(4);
    for (const statement of listings) expect(linksAccess(await plan(statement.text, statement.params))).toEqual(["links_crawl_order_idx"]);
  });
});

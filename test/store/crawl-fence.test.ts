import { expect, test } from "bun:test";
import { Frontier } from "../../src/crawler/frontier.ts";
import { failCrawl } from "../../src/crawler/crawl-transitions.ts";
import { WarningTally } from "../../src/core/crawl-warnings.ts";
import { CrawlEndedError } from "../../src/store/crawl-fence.ts";
import { CrawlsRepo } from "../../src/store/crawls.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openStore } from "../../src/store/sqlite.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";

/**
 * The fence behind a final cancel: once a crawl is no longer running, every write its worker tries (a batch of
 * results, recorded sitemaps and warnings, fragment verdicts, a page's ids) is refused with CrawlEndedError and
 * changes nothing, so the counts and warnings the cancel answered with stay as they were. The cancel settles the
 * domain's open links once (crawler/open-links.ts): a link the previous crawl left open that the cancelled crawl
 * had not reached is carried as not checked, and no later batch can list it broken too.
 */

const ROOT = "http://example.test/";
const PREVIOUS = "01a20460-0000-7000-8000-0000000000f0";
const CRAWL = "01a20460-0000-7000-8000-0000000000f1";
const ok = { status_code: 200, is_broken: false, error: null, warning: null };
const notFound = { status_code: 404, is_broken: true, error: null, warning: null };

test("a cancelled crawl's worker can write nothing more, and its warnings and counts stay", async () => {
  const store = openStore(":memory:");
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  // The previous crawl ended leaving ROOT -> b open (carried unchecked); this one reaches b only after its cancel.
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES (?, 'd1', 'failed', '{}', '2025-12-31', '2025-12-31')", [
    PREVIOUS,
  ]);
  store.sqlite.run(
    `INSERT INTO unchecked_links (crawl_id, source_url, url, kind, internal, link_text, status_code, cause, broken_since)
     VALUES (?, ?, ?, 'anchor', 1, 'b', 404, 'answer', '2025-12-30')`,
    [PREVIOUS, ROOT, `${ROOT}b`],
  );
  store.sqlite.run(
    "INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01', '2026-01-01')",
    [CRAWL],
  );
  const frontier = new Frontier(new SqliteDb(store.sqlite));
  const crawls = new CrawlsRepo(new SqliteDb(store.sqlite));
  await frontier.seed(CRAWL, ROOT);
  const [root] = await frontier.pull(CRAWL, 0, 10);
  const page = { url: ROOT, links: ["a", "b"].map((p) => ({ url: `${ROOT}${p}`, internal: true, kind: "anchor" as const, text: p })), cut: false };
  await frontier.commit(CRAWL, [{ kind: "checked", target: root!, verdict: ok, finalUrl: null, redirectEnd: null, page }], { maxPages: 100, maxDepth: 10 });
  await frontier.addWarnings(CRAWL, ["found while running"]);

  expect(await failCrawl(crawls, CRAWL, { kind: "cancelled" }, { now: "2026-01-01T00:00:01Z" })).toBe(true);
  const state = async () => ({
    row: await crawls.findById(CRAWL),
    warnings: await crawls.warnings.entries(CRAWL),
    links: store.sqlite.query("SELECT count(*) AS n FROM links").get(),
    broken: store.sqlite.query("SELECT count(*) AS n FROM broken_links WHERE crawl_id = ?").get(CRAWL),
    unchecked: store.sqlite.query("SELECT source_url, url, broken_since FROM unchecked_links WHERE crawl_id = ?").all(CRAWL),
  });
  const ended = await state();
  expect(ended.row).toMatchObject({ status: "failed", failure: "cancelled", pages_crawled: 1, total_links: 0 });
  expect(ended.warnings).toEqual([{ cause: "other", message: "found while running", count: 1, samples: [] }]);
  expect(ended.unchecked).toEqual([{ source_url: ROOT, url: `${ROOT}b`, broken_since: "2025-12-30" }]);
  expect(ended.broken).toEqual({ n: 0 });

  const [a, b] = await frontier.pull(CRAWL, root!.id, 10);
  const tally = new WarningTally();
  tally.add({ cause: "sitemap_empty", sample: `${ROOT}sitemap.xml` });
  const attempts: [string, () => Promise<unknown>][] = [
    [
      "a batch",
      () =>
        frontier.commit(CRAWL, [{ kind: "checked", target: a!, verdict: ok, finalUrl: null, redirectEnd: null, page: null }], { maxPages: 100, maxDepth: 10 }),
    ],
    [
      "a batch finding b broken",
      () =>
        frontier.commit(CRAWL, [{ kind: "checked", target: b!, verdict: notFound, finalUrl: null, redirectEnd: null, page: null }], {
          maxPages: 100,
          maxDepth: 10,
        }),
    ],
    ["sitemaps", () => frontier.recordSitemaps(CRAWL, [{ sitemapUrl: `${ROOT}sitemap.xml`, urls: [`${ROOT}orphan`] }], tally)],
    ["warnings", () => frontier.addWarnings(CRAWL, ["found after the end"])],
    [
      "fragment verdicts",
      () =>
        frontier.fragments.apply(
          CRAWL,
          [{ linkId: 1, targetId: b!.id, statusCode: 200, error: "fragment #x not found", warning: null, gap: null, brokenSince: "2026-01-01" }],
          1,
        ),
    ],
    ["a page's ids", () => frontier.fragments.savePageIds(CRAWL, `${ROOT}b`, new Uint8Array(0), null)],
    ["the fragment step's end", () => frontier.fragments.immediate(CRAWL, (repo) => repo.forgetCrawl(CRAWL))],
  ];
  for (const [what, attempt] of attempts) await expect(attempt(), what).rejects.toThrow(CrawlEndedError);
  expect(await state()).toEqual(ended);
  expect(store.sqlite.query("SELECT count(*) AS n FROM crawl_page_ids").get()).toEqual({ n: 0 });
  store.close();
});

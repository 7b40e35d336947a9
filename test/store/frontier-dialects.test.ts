import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { WarningTally } from "../../src/core/crawl-warnings.ts";
import { Frontier } from "../../src/crawler/frontier.ts";
import { CrawlEndedError, requireRunning } from "../../src/store/crawl-fence.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { WarningsRepo } from "../../src/store/warnings.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The crawler's frontier writes alike on SQLite and PostgreSQL (issue 43): seeded, pulled, a batch with links and
 * a redo committed in one transaction, the counters, the sitemaps and the warnings, and the fence of a crawl
 * that is no longer running.
 */

const ROOT = "http://example.test/";
const CRAWL = "01a20460-0000-7000-8000-0000000000d1";
const LIMITS = { maxPages: 100, maxDepth: 10 };
const ok = { status_code: 200, is_broken: false, error: null, warning: null };
const gone = { status_code: 404, is_broken: true, error: null, warning: null };

function page(target: FrontierTarget, paths: string[], kind: "anchor" | "image" = "anchor") {
  const links = paths.map((path) => ({ url: `${ROOT}${path}`, internal: true, kind, text: path }));
  return { kind: "checked" as const, target, verdict: ok, finalUrl: null, redirectEnd: null, page: { url: target.url, links, cut: false } };
}

function plain(target: FrontierTarget, verdict = ok) {
  return { kind: "checked" as const, target, verdict, finalUrl: null, redirectEnd: null, page: null };
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`the frontier on ${dialect.name}`, () => {
    let store: TestDb;
    let frontier: Frontier;
    const counts = () =>
      store.db.get<Record<string, number | null>>(
        "SELECT pages_crawled, total_links, broken_links, skipped_links, truncated, sitemap_urls, orphan_pages FROM crawls WHERE id = $id",
        { id: CRAWL },
      );
    beforeEach(async () => {
      store = await dialect.open();
      await store.db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', $root, 'tok')", { root: ROOT });
      await store.db.run(
        "INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES ($id, 'd1', 'running', '{}', '2026-01-01', '2026-01-01')",
        {
          id: CRAWL,
        },
      );
      frontier = new Frontier(store.db);
    });
    afterEach(() => store.close());

    test("seeded once, pulled in discovery order, a batch's links and verdicts counted, a target turned page handed back", async () => {
      await frontier.seed(CRAWL, ROOT);
      await frontier.seed(CRAWL, ROOT);
      const [root, ...none] = await frontier.pull(CRAWL, 0, 10);
      expect(none).toEqual([]);
      expect(root).toMatchObject({ url: ROOT, internal: true, asPage: true, depth: 0 });

      // The root links to an image /pic and to /a; /a links to /pic (as a page) and /b while /pic is checked as an image.
      expect(await frontier.commit(CRAWL, [page(root!, ["pic"], "image"), plain(root!)], LIMITS)).toEqual({ redo: [], pagesCrawled: 1 });
      const none2 = await frontier.pull(CRAWL, root!.id, 10);
      expect(none2.map((target) => [target.url, target.asPage])).toEqual([[`${ROOT}pic`, false]]);
      await store.db.run("UPDATE crawl_pages SET url = 'elsewhere' WHERE url = $url", { url: ROOT });
      await store.db.run("UPDATE crawl_targets SET state = 'queued' WHERE id = $id", { id: root!.id });
      await store.db.run("UPDATE crawls SET pages_crawled = 0 WHERE id = $id", { id: CRAWL });
      const [pic, a] = await frontier.pull(CRAWL, root!.id, 10);
      expect(a).toBeUndefined();
      // The root read again (as after a restart) now links /a.
      frontier = new Frontier(store.db);
      expect((await frontier.commit(CRAWL, [page(root!, ["a"])], LIMITS)).pagesCrawled).toBe(1);
      const [, aTarget] = await frontier.pull(CRAWL, root!.id, 10);
      expect(aTarget).toMatchObject({ url: `${ROOT}a`, asPage: true, depth: 1 });
      const second = await frontier.commit(CRAWL, [page(aTarget!, ["pic", "b"]), plain(pic!)], LIMITS);
      // /pic became a page while it was checked as an image: handed back, to be checked as a page.
      expect(second).toEqual({ redo: [{ ...pic!, asPage: true }], pagesCrawled: 2 });
      const [b] = (await frontier.pull(CRAWL, aTarget!.id, 10)).filter((target) => target.url === `${ROOT}b`);
      expect((await frontier.commit(CRAWL, [plain(b!, gone)], LIMITS)).redo).toEqual([]);
      expect(await counts()).toMatchObject({ pages_crawled: 2, total_links: 2, broken_links: 1, skipped_links: 0 });
      const third = await frontier.commit(CRAWL, [page({ ...pic!, asPage: true }, [])], LIMITS);
      expect(third).toEqual({ redo: [], pagesCrawled: 3 });
      expect(await frontier.pagesCrawled(CRAWL)).toBe(3);
      expect(await counts()).toMatchObject({ pages_crawled: 3, total_links: 4, broken_links: 1 });
      const links = await store.db.all<{ id: number; source_url: string; url: string }>(
        "SELECT l.id, l.source_url, t.url FROM links l JOIN crawl_targets t ON t.id = l.target_id ORDER BY l.id",
      );
      expect(links.map((link) => [link.source_url, link.url])).toEqual([
        [ROOT, `${ROOT}pic`],
        [ROOT, `${ROOT}a`],
        [`${ROOT}a`, `${ROOT}pic`],
        [`${ROOT}a`, `${ROOT}b`],
      ]);
      // Consecutive ids from the first: the batch's chains and broken links name them before they are written.
      expect(links.map((link) => link.id - links[0]!.id)).toEqual([0, 1, 2, 3]);
      const broken = await store.db.all<{ link_id: number }>("SELECT link_id FROM broken_links ORDER BY link_id");
      expect(broken.map((row) => row.link_id)).toEqual([links[3]!.id]);
      expect(await store.db.all("SELECT status_code, is_broken, links FROM crawl_status_counts ORDER BY status_code")).toEqual([
        { status_code: 200, is_broken: 0, links: 3 },
        { status_code: 404, is_broken: 1, links: 1 },
      ]);
    });

    test("targets beyond what memory holds are found in the store and wait in crawl_waiting, across a restart", async () => {
      const small = new Frontier(store.db, { maxKnownTargets: 3 });
      await small.seed(CRAWL, ROOT);
      const [root] = await small.pull(CRAWL, 0, 10);
      const shared = ["s0", "s1", "s2", "s3", "s4", "s5"];
      await small.commit(CRAWL, [page(root!, shared)], LIMITS);
      const queued = await small.pull(CRAWL, root!.id, 100);
      await small.commit(CRAWL, [page(queued[0]!, shared), page(queued[1]!, shared)], LIMITS);
      // A restart: what waits for what is rebuilt from the links, the targets past memory's room in crawl_waiting.
      const resumed = new Frontier(store.db, { maxKnownTargets: 3 });
      const left = (await resumed.pull(CRAWL, queued[1]!.id, 100)).filter((target) => target.url.includes("/s"));
      expect(left.map((target) => target.url)).toEqual(shared.slice(2).map((path) => `${ROOT}${path}`));
      await resumed.commit(CRAWL, [plain(left[0]!, gone), ...left.slice(1).map((target) => plain(target))], LIMITS);
      // 1 + 2 pages x 6 links, all to checked targets now; s2's three links broken.
      expect(await counts()).toMatchObject({ pages_crawled: 3, total_links: 18, broken_links: 3 });
      expect(await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM crawl_waiting")).toEqual({ n: 0 });
      expect(await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM crawl_targets")).toEqual({ n: 7 });
    });

    test("a page past max_pages is checked, not parsed, and marks the crawl truncated", async () => {
      await frontier.seed(CRAWL, ROOT);
      const [root] = await frontier.pull(CRAWL, 0, 10);
      await frontier.commit(CRAWL, [page(root!, ["a"])], { maxPages: 1, maxDepth: 10 });
      const [a] = await frontier.pull(CRAWL, root!.id, 10);
      expect((await frontier.commit(CRAWL, [page(a!, ["b"])], { maxPages: 1, maxDepth: 10 })).pagesCrawled).toBe(1);
      expect(await counts()).toMatchObject({ pages_crawled: 1, total_links: 1, truncated: 1 });
    });

    test("sitemaps: entries are Links of kind sitemap, the orphans counted, the warnings merged once", async () => {
      await frontier.seed(CRAWL, ROOT);
      const [root] = await frontier.pull(CRAWL, 0, 10);
      await frontier.commit(CRAWL, [page(root!, ["a"])], LIMITS);
      expect(await frontier.sitemapsRecorded(CRAWL)).toBe(false);
      const tally = new WarningTally();
      tally.add({ cause: "sitemap_empty", sample: `${ROOT}empty.xml` });
      await frontier.addWarnings(CRAWL, ["found while running"]);
      await frontier.recordSitemaps(CRAWL, [{ sitemapUrl: `${ROOT}sitemap.xml`, urls: [ROOT, `${ROOT}a`, `${ROOT}orphan`] }], tally);
      expect(await frontier.sitemapsRecorded(CRAWL)).toBe(true);
      expect(await counts()).toMatchObject({ sitemap_urls: 3, orphan_pages: 1, total_links: 1 });
      const orphan = (await frontier.pull(CRAWL, root!.id, 10)).find((target) => target.url === `${ROOT}orphan`);
      expect(orphan).toMatchObject({ asPage: false });
      const kinds = await store.db.all<{ kind: string; n: number }>("SELECT kind, COUNT(*) AS n FROM links GROUP BY kind ORDER BY kind");
      expect(kinds).toEqual([
        { kind: "anchor", n: 1 },
        { kind: "sitemap", n: 3 },
      ]);
      expect(await new WarningsRepo(store.db).entries(CRAWL)).toEqual([
        { cause: "other", message: "found while running", count: 1, samples: [] },
        { cause: "sitemap_empty", message: expect.any(String), count: 1, samples: [`${ROOT}empty.xml`] },
      ]);
    });

    // Row locks are PostgreSQL's: on SQLite the batch's immediate transaction holds the whole store.
    if (dialect.name === "postgres")
      test("a cancel's update waits for the batch that found the crawl running (FOR SHARE)", async () => {
        let fenced!: () => void;
        const passed = new Promise<void>((resolve) => {
          fenced = resolve;
        });
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const batch = store.db.transaction(async (tx) => {
          await requireRunning(tx, CRAWL);
          fenced();
          await held;
          await tx.run("UPDATE crawls SET pages_crawled = 7 WHERE id = $id", { id: CRAWL });
        });
        await passed;
        let cancelled = false;
        const cancel = store.db.run("UPDATE crawls SET status = 'failed' WHERE id = $id AND status = 'running'", { id: CRAWL }).then((result) => {
          cancelled = true;
          return result;
        });
        await Bun.sleep(300);
        expect(cancelled).toBe(false);
        release();
        await batch;
        expect((await cancel).changes).toBe(1);
        expect(await store.db.get<{ status: string; pages_crawled: number }>("SELECT status, pages_crawled FROM crawls WHERE id = $id", { id: CRAWL })).toEqual(
          {
            status: "failed",
            pages_crawled: 7,
          },
        );
      });

    test("a crawl no longer running takes no batch, and the fence waits for nothing else", async () => {
      await frontier.seed(CRAWL, ROOT);
      const [root] = await frontier.pull(CRAWL, 0, 10);
      await store.db.run("UPDATE crawls SET status = 'failed' WHERE id = $id", { id: CRAWL });
      await expect(frontier.commit(CRAWL, [page(root!, ["a"])], LIMITS)).rejects.toThrow(CrawlEndedError);
      await expect(frontier.addWarnings(CRAWL, ["late"])).rejects.toThrow(CrawlEndedError);
      expect(await counts()).toMatchObject({ pages_crawled: 0, total_links: 0 });
      expect(await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM links")).toEqual({ n: 0 });
    });
  });
}

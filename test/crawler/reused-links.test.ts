import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../src/store/sqlite.ts";
import { Frontier, type FrontierResult } from "../../src/crawler/frontier.ts";
import { PageReuse } from "../../src/crawler/page-reuse.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";
import { PageReuseRepo } from "../../src/store/page-reuse.repo.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * A reused page's links, read from the previous crawl's rows one at a time into one record (no object per link),
 * are written with this crawl's targets and accounting as a parsed page's are; rows pruned once the page was read
 * change nothing: what was read is written (docs/decisions.md, "Incremental audits").
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-reused-links-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = "http://example.test/";
const LIMITS = { maxPages: 1_000, maxDepth: 10 };
const LIMITS_READ = { maxLinksPerPage: 1_000, maxBodyBytes: 1 << 20 };
const ok = { status_code: 200, is_broken: false, error: null, warning: null };
const gone = { status_code: 404, is_broken: true, error: null, warning: null };
const RECORD = { etag: '"e"', lastModified: null, bodyHash: "hash", bodyBytes: 100, linksFound: 4 };
const TEXTS = ['<script>alert("x")</script> it\'s ⟨U+202E⟩', "", "Image", "again"];

function store(name: string, crawls: string[]): Store {
  const opened = openStore(join(dir, name), { busyTimeoutMs: 10_000, create: true });
  migrate(opened.sqlite);
  // One running crawl per domain: each crawl its own (the reuse reads the previous one by id alone).
  for (const [i, id] of crawls.entries()) {
    opened.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES (?, ?, ?, 'tok')", [`d${i}`, `example${i}.test`, ROOT]);
    opened.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, ?, 'running', '{}', ?)", [id, `d${i}`, `2026-01-0${i + 1}`]);
  }
  return opened;
}

/** The previous crawl: the root page read with four links (one target named twice), then every target checked, /b broken. */
async function previousCrawl(frontier: Frontier, crawlId: string): Promise<void> {
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);
  const links = [
    { url: `${ROOT}a`, internal: true, kind: "anchor" as const, text: TEXTS[0]! },
    { url: `${ROOT}b`, internal: true, kind: "anchor" as const, text: TEXTS[1]! },
    { url: `${ROOT}i.png`, internal: true, kind: "image" as const, text: TEXTS[2]! },
    { url: `${ROOT}a`, internal: true, kind: "anchor" as const, text: TEXTS[3]! },
  ];
  await frontier.commit(
    crawlId,
    [{ kind: "checked", target: root!, verdict: ok, finalUrl: ROOT, redirectEnd: null, page: { url: ROOT, links, cut: false, record: RECORD } }],
    LIMITS,
  );
  const targets = await frontier.pull(crawlId, root!.id, 10);
  await frontier.commit(
    crawlId,
    targets.map((target) => done(target, target.url.endsWith("/b") ? gone : ok)),
    LIMITS,
  );
}

function done(target: FrontierTarget, verdict: typeof ok): FrontierResult {
  return { kind: "checked", target, verdict, finalUrl: target.url, redirectEnd: null, page: null };
}

/** The root of `crawlId` as a reused page: its links those of `previous`'s root. */
async function reusedRoot(frontier: Frontier, reuse: PageReuse, crawlId: string): Promise<{ root: FrontierTarget; result: FrontierResult }> {
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);
  const stored = (await reuse.storedPage(ROOT, LIMITS_READ))!;
  expect(stored).not.toBeNull();
  const reusedLinks = (await reuse.links(stored))!;
  expect(reusedLinks.count).toBe(4);
  const page = { url: ROOT, links: [], reusedLinks, excluded: reusedLinks.excluded, cut: false, record: RECORD, reused: true };
  return { root: root!, result: { kind: "checked", target: root!, verdict: ok, finalUrl: ROOT, redirectEnd: null, page } };
}

test("a reused page's links are the previous rows with this crawl's targets, counted when their targets are", async () => {
  const [previous, current] = ["01a20460-0000-7000-8000-0000000000d1", "01a20460-0000-7000-8000-0000000000d2"];
  const { sqlite } = store("copy.db", [previous, current]);
  const frontier = new Frontier(new SqliteDb(sqlite));
  await previousCrawl(frontier, previous);
  const reuse = new PageReuse(new PageReuseRepo(new SqliteDb(sqlite)), previous, false);
  const { root, result } = await reusedRoot(frontier, reuse, current);
  expect((await frontier.commit(current, [result], LIMITS)).redo).toEqual([]);

  const rows = () =>
    sqlite
      .query<{ text: string; kind: string; url: string; crawl: string; waiting: number | null }, [string]>(
        `SELECT l.link_text AS text, l.kind, t.url, t.crawl_id AS crawl, l.waiting_prev_id AS waiting
         FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE l.crawl_id = ?1 ORDER BY l.id`,
      )
      .all(current);
  const written = rows();
  expect(written.map((row) => [row.text, row.kind, row.url, row.crawl])).toEqual([
    [TEXTS[0]!, "anchor", `${ROOT}a`, current],
    [TEXTS[1]!, "anchor", `${ROOT}b`, current],
    [TEXTS[2]!, "image", `${ROOT}i.png`, current],
    [TEXTS[3]!, "anchor", `${ROOT}a`, current],
  ]);
  // The second link to /a waits in the chain behind the first, as a parsed page's would.
  const ids = sqlite
    .query<{ id: number }, [string]>("SELECT id FROM links WHERE crawl_id = ?1 ORDER BY id")
    .all(current)
    .map((row) => row.id);
  expect(written.map((row) => row.waiting)).toEqual([null, null, null, ids[0]!]);
  // The page's range is claimed for the next crawl to reuse in turn.
  expect(sqlite.query("SELECT first_link_id AS first, link_count AS n FROM crawl_pages WHERE crawl_id = ?1").get(current)).toEqual({ first: ids[0], n: 4 });

  const targets = await frontier.pull(current, root.id, 10);
  expect(targets.map((target) => [target.url, target.asPage])).toEqual([
    [`${ROOT}a`, true],
    [`${ROOT}b`, true],
    [`${ROOT}i.png`, false],
  ]);
  await frontier.commit(
    current,
    targets.map((target) => done(target, target.url.endsWith("/b") ? gone : ok)),
    LIMITS,
  );
  const counts = sqlite.query("SELECT total_links AS total, broken_links AS broken, pages_reused AS reused FROM crawls WHERE id = ?1").get(current);
  expect(counts).toEqual({ total: 4, broken: 1, reused: 1 });
  expect(sqlite.query("SELECT COUNT(*) AS n FROM broken_links WHERE crawl_id = ?1").get(current)).toEqual({ n: 1 });
});

test("rows pruned after the page was read: the page's links are written as read", async () => {
  const [previous, current] = ["01a20460-0000-7000-8000-0000000000d3", "01a20460-0000-7000-8000-0000000000d4"];
  const { sqlite } = store("pruned.db", [previous, current]);
  const frontier = new Frontier(new SqliteDb(sqlite));
  await previousCrawl(frontier, previous);
  const reuse = new PageReuse(new PageReuseRepo(new SqliteDb(sqlite)), previous, false);
  const { result } = await reusedRoot(frontier, reuse, current);
  // Retention deletes a crawl's links a chunk at a time: here, some of the page's.
  sqlite.run("DELETE FROM links WHERE id IN (SELECT id FROM links WHERE crawl_id = ?1 ORDER BY id DESC LIMIT 2)", [previous]);

  expect((await frontier.commit(current, [result], LIMITS)).redo).toEqual([]);
  const texts = sqlite.query<{ text: string }, [string]>("SELECT link_text AS text FROM links WHERE crawl_id = ?1 ORDER BY id").all(current);
  expect(texts.map((row) => row.text)).toEqual(TEXTS);
  expect(sqlite.query("SELECT pages_crawled AS pages, pages_reused AS reused FROM crawls WHERE id = ?1").get(current)).toEqual({ pages: 1, reused: 1 });
  // Read again, the page's links are no longer all there: it is not reused (the caller reads it in full).
  expect(await reuse.links((await reuse.storedPage(ROOT, LIMITS_READ))!)).toBeNull();
});

/** A previous crawl with three pages read, each with links of its own (and /c past the pages, never read). */
async function previousPages(frontier: Frontier, crawlId: string): Promise<void> {
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);
  const link = (path: string, text: string) => ({ url: `${ROOT}${path}`, internal: true, kind: "anchor" as const, text });
  const page = (url: string, links: ReturnType<typeof link>[]) => ({ url, links, cut: false, record: { ...RECORD, linksFound: links.length } });
  await frontier.commit(
    crawlId,
    [
      {
        kind: "checked",
        target: root!,
        verdict: ok,
        finalUrl: ROOT,
        redirectEnd: null,
        page: page(ROOT, [link("a", "to a"), link("b", "to b"), link("c", "to c")]),
      },
    ],
    LIMITS,
  );
  const [a, b, c] = await frontier.pull(crawlId, root!.id, 10);
  const read = (target: FrontierTarget, links: ReturnType<typeof link>[]): FrontierResult => ({
    kind: "checked",
    target,
    verdict: ok,
    finalUrl: target.url,
    redirectEnd: null,
    page: page(target.url, links),
  });
  await frontier.commit(
    crawlId,
    [read(a!, [link("", "home"), link("b", "next"), link("c", "c"), link("b", "b again")]), read(b!, [link("a", "back")]), done(c!, ok)],
    LIMITS,
  );
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`pages read ahead on ${dialect.name}`, () => {
    let opened: TestDb;
    beforeAll(async () => {
      opened = await dialect.open();
    });
    afterAll(() => opened?.close());

    test("pages read ahead are the pages read one at a time, their links read with them within the budget and when asked past it", async () => {
      const previous = "01a20460-0000-7000-8000-0000000000d5";
      const { db } = opened;
      await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d0', 'example0.test', $root, 'tok')", { root: ROOT });
      await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ($id, 'd0', 'running', '{}', '2026-01-01')", { id: previous });
      await previousPages(new Frontier(db), previous);
      const repo = new PageReuseRepo(db);
      const urls = [ROOT, `${ROOT}a`, `${ROOT}b`, `${ROOT}c`, `${ROOT}never`];
      // Budget 4: the root's 3 links are read ahead, /a's 4 would pass it, /b's 1 fits after the root's.
      const ahead = new PageReuse(repo, previous, false, 4);
      await ahead.readAhead(urls);
      const alone = new PageReuse(repo, previous, false);
      const linksOf = async (reuse: PageReuse, url: string) => {
        const page = await reuse.storedPage(url, LIMITS_READ);
        if (page === null) return null;
        const links = (await reuse.links(page))!;
        const read = Array.from({ length: links.count }, (_, i) => {
          const into = {} as Parameters<typeof links.read>[1];
          links.read(i, into);
          return [into.url, into.text, into.kind];
        });
        return { readAhead: page.readLinks !== undefined, firstLinkId: page.firstLinkId, linkCount: page.linkCount, read };
      };
      const got = [];
      for (const url of urls) {
        const [a, b] = [await linksOf(ahead, url), await linksOf(alone, url)];
        expect(a === null ? null : { ...a, readAhead: false }).toEqual(b);
        got.push(a === null ? null : [a.readAhead, a.read.length]);
      }
      // /c was checked, not read as a page, and /never is not in the previous crawl: neither is stored.
      expect(got).toEqual([[true, 3], [false, 4], [true, 1], null, null]);
      expect((await linksOf(ahead, `${ROOT}a`))?.read).toEqual([
        [ROOT, "home", "anchor"],
        [`${ROOT}b`, "next", "anchor"],
        [`${ROOT}c`, "c", "anchor"],
        [`${ROOT}b`, "b again", "anchor"],
      ]);
      // Taken by storedPage, a page read ahead is not held any more: asked again, it is read alone.
      expect((await ahead.storedPage(ROOT, LIMITS_READ))?.readLinks).toBeUndefined();
    });
  });
}

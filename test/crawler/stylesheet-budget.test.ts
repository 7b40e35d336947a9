import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Frontier } from "../../src/crawler/frontier.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";
import { openStore } from "../../src/store/sqlite.ts";

/**
 * A parsed stylesheet records its links but is not a page (pages_crawled), and stylesheets have a max_pages
 * budget of their own, which a resumed crawl (a new Frontier on the same store) still knows.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-sheets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = "http://example.test/";
const CRAWL = "01a20460-0000-7000-8000-0000000000d1";
const ok = { status_code: 200, is_broken: false, error: null, warning: null };

/** A checked page (or stylesheet) whose links are all stylesheet links. */
function result(target: FrontierTarget, links: string[], stylesheet: boolean) {
  const page = { url: target.url, links: links.map((url) => ({ url, internal: true, kind: "stylesheet" as const, text: "" })), cut: false, stylesheet };
  return { kind: "checked" as const, target, verdict: ok, finalUrl: target.url, redirectEnd: null, page };
}

test("stylesheets do not count as pages, and their budget of max_pages survives a resume", async () => {
  const store = openStore(join(dir, "budget.db"), { busyTimeoutMs: 10_000, create: true });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01')", [CRAWL]);
  const limits = { maxPages: 2, maxDepth: 10 };
  const counts = () => store.sqlite.query("SELECT pages_crawled, truncated, total_links FROM crawls WHERE id = ?").get(CRAWL);

  const first = new Frontier(new SqliteDb(store.sqlite));
  await first.seed(CRAWL, ROOT);
  const [root] = await first.pull(CRAWL, 0, 10);
  await first.commit(CRAWL, [result(root!, [`${ROOT}a.css`, `${ROOT}b.css`, `${ROOT}c.css`], false)], limits);
  const [a, b, c] = await first.pull(CRAWL, root!.id, 10);
  await first.commit(CRAWL, [result(a!, [`${ROOT}a.png`], true)], limits);
  // Links count once their target has a verdict: only root → a.css so far.
  expect(counts()).toEqual({ pages_crawled: 1, truncated: 0, total_links: 1 });

  // A new Frontier on the same store, as after a restart: one stylesheet read, one left in the budget.
  const resumed = new Frontier(new SqliteDb(store.sqlite));
  await resumed.commit(CRAWL, [result(b!, [`${ROOT}b.png`], true), result(c!, [`${ROOT}c.png`], true)], limits);
  const sources = store.sqlite.query("SELECT DISTINCT source_url FROM links ORDER BY source_url").all() as { source_url: string }[];
  expect(sources.map((row) => row.source_url)).toEqual([ROOT, `${ROOT}a.css`, `${ROOT}b.css`]);
  expect(counts()).toMatchObject({ pages_crawled: 1, truncated: 1 });
  store.close();
});

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../src/store/db.ts";
import { FrontierRepo, type FrontierTarget } from "../../src/store/frontier.repo.ts";
import { migrate } from "../../src/store/migrate.ts";

/** How the crawler's batches land in a file store shared with other connections. */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-frontier-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = "http://example.test/";
const LIMITS = { maxPages: 1_000, maxDepth: 10 };
const ok = { status_code: 200, is_broken: false, error: null, warning: null };

function freshStore(name: string, crawlId: string): Store {
  const store = openStore(join(dir, name), { busyTimeoutMs: 10_000 });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01')", [crawlId]);
  return store;
}

function checked(target: FrontierTarget, links: string[]) {
  const page = { url: target.url, links: links.map((url) => ({ url, internal: true, kind: "anchor" as const, text: url })) };
  return { kind: "checked" as const, target, verdict: ok, finalUrl: null, redirectEnd: null, page };
}

/** Starts a process that takes the store's write lock, says so, holds it for `holdMs` and commits. */
async function holdWriteLock(path: string, crawlId: string, holdMs: number) {
  const script = `
    const { Database } = require("bun:sqlite");
    const db = new Database(${JSON.stringify(path)});
    db.exec("BEGIN IMMEDIATE");
    db.run("UPDATE crawls SET error = 'touched by another connection' WHERE id = ?", [${JSON.stringify(crawlId)}]);
    console.log("locked");
    Bun.sleepSync(${holdMs});
    db.exec("COMMIT");
    db.close();`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const first = await Promise.race([reader.read(), Bun.sleep(10_000).then(() => null)]);
  if (first === null || first.done || !new TextDecoder().decode(first.value).includes("locked")) {
    child.kill();
    throw new Error("the lock holder did not start");
  }
  reader.releaseLock();
  return child;
}

test("a batch committed while another connection holds the write lock waits for it instead of failing", async () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000c1";
  const store = freshStore("lock.db", crawlId);
  const frontier = new FrontierRepo(store.sqlite);
  frontier.seed(crawlId, ROOT);
  const [root] = frontier.pull(crawlId, 0, 10);

  const holder = await holdWriteLock(join(dir, "lock.db"), crawlId, 300);
  // Synchronous: returns once the holder committed. A deferred transaction would read first and then fail
  // its first write with "database is locked", which no busy timeout waits out.
  frontier.commit(crawlId, [checked(root!, [`${ROOT}a`, `${ROOT}b`])], LIMITS);
  expect(await holder.exited).toBe(0);

  const crawl = store.sqlite.query("SELECT pages_crawled, error FROM crawls WHERE id = ?").get(crawlId);
  expect(crawl).toEqual({ pages_crawled: 1, error: "touched by another connection" });
  expect(frontier.pull(crawlId, 0, 10).map((target) => target.url)).toEqual([`${ROOT}a`, `${ROOT}b`]);
  store.close();
});

test("targets beyond what the in-memory table holds are found in the store, never duplicated, their links counted", () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000c2";
  const store = freshStore("turnover.db", crawlId);
  const frontier = new FrontierRepo(store.sqlite, { maxKnownTargets: 2 });
  frontier.seed(crawlId, ROOT);
  const [root] = frontier.pull(crawlId, 0, 10);
  const shared = Array.from({ length: 10 }, (_, i) => `${ROOT}s${i}`);
  frontier.commit(crawlId, [checked(root!, shared)], LIMITS);

  // Each page links every shared target again (and one of its own): far more than the table holds.
  const pages = frontier.pull(crawlId, 0, 100);
  frontier.commit(crawlId, pages.slice(0, 5).map((page, i) => checked(page, [...shared, `${ROOT}own${i}`])), LIMITS);

  const targets = store.sqlite.query("SELECT COUNT(*) AS n FROM crawl_targets WHERE crawl_id = ?").get(crawlId);
  expect(targets).toEqual({ n: 1 + 10 + 5 });
  const perTarget = store.sqlite
    .query("SELECT t.url, COUNT(*) AS n FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE l.crawl_id = ? GROUP BY t.id ORDER BY t.id")
    .all(crawlId) as { url: string; n: number }[];
  expect(perTarget.filter((row) => row.url.includes("/s")).map((row) => row.n)).toEqual(Array(10).fill(6));
  expect(perTarget.filter((row) => row.url.includes("/own")).map((row) => row.n)).toEqual(Array(5).fill(1));
  // Five of the shared targets were checked (as pages), so their six links each count; the rest wait.
  expect(store.sqlite.query("SELECT pages_crawled, total_links FROM crawls WHERE id = ?").get(crawlId)).toEqual({
    pages_crawled: 6,
    total_links: 5 * 6,
  });
  store.close();
});

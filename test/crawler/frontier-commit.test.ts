import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, openStore, type Store } from "../../src/store/sqlite.ts";
import { BatchAccountingError, Frontier } from "../../src/crawler/frontier.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";

/** How the crawler's batches land in a file store shared with other connections. */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-frontier-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = "http://example.test/";
const LIMITS = { maxPages: 1_000, maxDepth: 10 };
const ok = { status_code: 200, is_broken: false, error: null, warning: null };

function freshStore(name: string, crawlId: string): Store {
  const store = openStore(join(dir, name), { busyTimeoutMs: 10_000, create: true });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01')", [crawlId]);
  return store;
}

function checked(target: FrontierTarget, links: string[]) {
  const page = { url: target.url, links: links.map((url) => ({ url, internal: true, kind: "anchor" as const, text: url })), cut: false };
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
  const frontier = new Frontier(new SqliteDb(store.sqlite));
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);

  const holder = await holdWriteLock(join(dir, "lock.db"), crawlId, 300);
  // Returns once the holder committed (the busy timeout waits). A deferred transaction would read first and then fail
  // its first write with "database is locked", which no busy timeout waits out.
  await frontier.commit(crawlId, [checked(root!, [`${ROOT}a`, `${ROOT}b`])], LIMITS);
  expect(await holder.exited).toBe(0);

  const crawl = store.sqlite.query("SELECT pages_crawled, error FROM crawls WHERE id = ?").get(crawlId);
  expect(crawl).toEqual({ pages_crawled: 1, error: "touched by another connection" });
  expect((await frontier.pull(crawlId, 0, 10)).map((target) => target.url)).toEqual([`${ROOT}a`, `${ROOT}b`]);
  store.close();
});

test("a batch tells the pages the store counted; one whose counts disagree with the store's is refused whole", async () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000c5";
  const store = freshStore("accounting.db", crawlId);
  const frontier = new Frontier(new SqliteDb(store.sqlite));
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);
  expect(await frontier.commit(crawlId, [checked(root!, [`${ROOT}a`, `${ROOT}b`])], LIMITS)).toEqual({ redo: [], pagesCrawled: 1 });
  const counts = () => store.sqlite.query("SELECT pages_crawled, total_links, (SELECT count(*) FROM links) AS links FROM crawls WHERE id = ?").get(crawlId);
  // A fault in the accounting: a page counted twice behind the frontier's back.
  store.sqlite.run("UPDATE crawls SET pages_crawled = pages_crawled + 1 WHERE id = ?", [crawlId]);
  const before = counts();
  const [a] = await frontier.pull(crawlId, root!.id, 1);
  await expect(frontier.commit(crawlId, [checked(a!, [`${ROOT}b`, `${ROOT}c`])], LIMITS)).rejects.toThrow(BatchAccountingError);
  expect(counts()).toEqual(before);
  expect((await frontier.pull(crawlId, root!.id, 10)).map((target) => target.url)).toEqual([`${ROOT}a`, `${ROOT}b`]);
  store.close();
});

test("a resume whose rebuild of the waiting counts fails (store locked) rebuilds them on the next batch, and counts every link", async () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000c3";
  const path = join(dir, "rebuild.db");
  const store = freshStore("rebuild.db", crawlId);
  const before = new Frontier(new SqliteDb(store.sqlite));
  await before.seed(crawlId, ROOT);
  const [root] = await before.pull(crawlId, 0, 10);
  await before.commit(crawlId, [checked(root!, [`${ROOT}a`, `${ROOT}b`])], LIMITS);
  const [a] = await before.pull(crawlId, root!.id, 10);
  // Both pages link /b: two links wait for its verdict.
  await before.commit(crawlId, [checked(a!, [`${ROOT}b`])], LIMITS);
  const b = (await before.pull(crawlId, 0, 10)).find((target) => target.url === `${ROOT}b`)!;
  store.close();

  // The crawl resumes on a connection that does not wait for the write lock, while another holds it.
  const resumed = openStore(path, { busyTimeoutMs: 0 });
  const frontier = new Frontier(new SqliteDb(resumed.sqlite));
  const holder = await holdWriteLock(path, crawlId, 300);
  await expect(frontier.commit(crawlId, [checked(b, [])], LIMITS)).rejects.toThrow();
  expect(await holder.exited).toBe(0);

  await frontier.commit(crawlId, [checked(b, [])], LIMITS);
  // root -> a, root -> b, a -> b: every target checked, every link counted.
  expect(resumed.sqlite.query("SELECT pages_crawled, total_links FROM crawls WHERE id = ?").get(crawlId)).toEqual({ pages_crawled: 3, total_links: 3 });
  resumed.close();
});

test("targets beyond what the in-memory table holds are found in the store, never duplicated, their links counted", async () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000c2";
  const store = freshStore("turnover.db", crawlId);
  const frontier = new Frontier(new SqliteDb(store.sqlite), { maxKnownTargets: 2 });
  await frontier.seed(crawlId, ROOT);
  const [root] = await frontier.pull(crawlId, 0, 10);
  const shared = Array.from({ length: 10 }, (_, i) => `${ROOT}s${i}`);
  await frontier.commit(crawlId, [checked(root!, shared)], LIMITS);

  // Each page links every shared target again (and one of its own): far more than the table holds.
  const pages = await frontier.pull(crawlId, 0, 100);
  await frontier.commit(
    crawlId,
    pages.slice(0, 5).map((page, i) => checked(page, [...shared, `${ROOT}own${i}`])),
    LIMITS,
  );

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

const broken404 = { status_code: 404, is_broken: true, error: null, warning: null };

test.each([
  ["held in memory", 1_000],
  ["beyond what memory holds", 3],
])("links waiting for targets %s are counted once their verdicts come, across a restart", async (_name, maxKnownTargets) => {
  const crawlId = `01a20460-0000-7000-8000-00000000c3${String(maxKnownTargets).padStart(2, "0").slice(-2)}`;
  const store = freshStore(`restart-${maxKnownTargets}.db`, crawlId);
  const first = new Frontier(new SqliteDb(store.sqlite), { maxKnownTargets });
  await first.seed(crawlId, ROOT);
  const [root] = await first.pull(crawlId, 0, 10);
  const shared = Array.from({ length: 6 }, (_, i) => `${ROOT}s${i}`);
  await first.commit(crawlId, [checked(root!, shared)], LIMITS);
  // Three shared pages are parsed: each links every shared target, so each target has links waiting for it.
  const queued = await first.pull(crawlId, 0, 100);
  await first.commit(
    crawlId,
    queued.slice(0, 3).map((page) => checked(page, shared)),
    LIMITS,
  );

  // A restart: a new frontier rebuilds what waits for what from the store alone.
  const second = new Frontier(new SqliteDb(store.sqlite), { maxKnownTargets });
  const left = (await second.pull(crawlId, 0, 100)).filter((target) => !queued.slice(0, 3).some((done) => done.id === target.id));
  expect(left.map((target) => target.url)).toEqual(shared.slice(3));
  // The rest get verdicts, one of them broken; one more page links them all again.
  await second.commit(
    crawlId,
    [
      { kind: "checked", target: left[0]!, verdict: broken404, finalUrl: null, redirectEnd: null, page: null },
      checked(left[1]!, shared),
      checked(left[2]!, []),
    ],
    LIMITS,
  );

  // Every link now has a checked target: 1 + 4 pages x 6 shared links, s3's seven of them broken.
  const crawl = store.sqlite.query("SELECT pages_crawled, total_links, broken_links FROM crawls WHERE id = ?").get(crawlId);
  expect(crawl).toEqual({ pages_crawled: 6, total_links: 6 * 5, broken_links: 5 });
  const listed = store.sqlite
    .query(
      "SELECT t.url FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = l.target_id WHERE b.crawl_id = ? ORDER BY b.link_id",
    )
    .all(crawlId) as { url: string }[];
  expect(listed.map((row) => row.url)).toEqual(Array(5).fill(`${ROOT}s3`));
  const statuses = store.sqlite.query("SELECT status_code, is_broken, links FROM crawl_status_counts WHERE crawl_id = ? ORDER BY status_code").all(crawlId);
  expect(statuses).toEqual([
    { status_code: 200, is_broken: 0, links: 25 },
    { status_code: 404, is_broken: 1, links: 5 },
  ]);
  // Nothing is left waiting once every target has its verdict.
  expect(store.sqlite.query("SELECT COUNT(*) AS n FROM crawl_waiting").get()).toEqual({ n: 0 });
  store.close();
});

test("a resumed frontier reads every target even past what memory holds: no read is left open to block another connection's writes", async () => {
  const crawlId = "01a20460-0000-7000-8000-0000000000d1";
  // check's temporary store has no WAL: a read left open on one connection makes the other's writes wait and fail.
  const path = join(dir, "no-wal-resume.db");
  const store = openStore(path, { busyTimeoutMs: 200, temporary: true, create: true });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01')", [crawlId]);
  const first = new Frontier(new SqliteDb(store.sqlite));
  await first.seed(crawlId, ROOT);
  const [root] = await first.pull(crawlId, 0, 10);
  await first.commit(
    crawlId,
    [
      checked(
        root!,
        Array.from({ length: 6 }, (_, i) => `${ROOT}p${i}`),
      ),
    ],
    LIMITS,
  );

  // The crawl job's own connection resumes the crawl with room for 2 of its 7 targets.
  const job = openDatabase(path, { busyTimeoutMs: 200, temporary: true });
  const resumed = new Frontier(new SqliteDb(job), { maxKnownTargets: 2 });
  const [next] = await resumed.pull(crawlId, root!.id, 1);
  await resumed.commit(crawlId, [checked(next!, [])], LIMITS);

  store.sqlite.run("UPDATE crawls SET error = 'written beside the job' WHERE id = ?", [crawlId]);
  expect(store.sqlite.query("SELECT pages_crawled, error FROM crawls WHERE id = ?").get(crawlId)).toEqual({
    pages_crawled: 2,
    error: "written beside the job",
  });
  job.close();
  store.close();
});

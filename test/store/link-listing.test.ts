import { beforeAll, expect, test } from "bun:test";
import type { Db } from "../../src/store/db.ts";
import { CrawlsRepo } from "../../src/store/crawls.repo.ts";
import { type LinkFilter, LinksRepo } from "../../src/store/links.repo.ts";
import { LinkMarks, MARK_STRIDE } from "../../src/store/link-marks.ts";
import { forEachDialect } from "../helpers/dbs.ts";

/**
 * Pages of a crawl's links: deep pages of an ended crawl start from remembered positions instead of walking
 * every row before them, so they are checked here against plain OFFSET over the same rows, for every filter,
 * across mark boundaries and past the end. Targets are a mix of checked (ok, broken, several status codes),
 * still queued and robots-skipped, spread so the listing skips rows irregularly. On both dialects.
 */

const TARGETS = 400;
const LINKS = 7_321;

function targetFor(i: number): { state: string; status: number | null; broken: number | null } {
  if (i % 37 === 0) return { state: "queued", status: null, broken: null };
  if (i % 41 === 0) return { state: "skipped", status: null, broken: null };
  if (i % 7 === 0) return { state: "done", status: 404, broken: 1 };
  if (i % 11 === 0) return { state: "done", status: 500, broken: 1 };
  return { state: "done", status: i % 5 === 0 ? 301 : 200, broken: 0 };
}

/** The fixture: two crawls (one ended, one running) of TARGETS targets and LINKS links each, and what the crawler derives. */
async function fill(db: Db): Promise<void> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  for (const [id, status] of [
    ["ended", "completed"],
    ["running", "running"],
  ] as const) {
    await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ($id, 'd1', $status, '{}', $createdAt)", {
      id,
      status,
      createdAt: `2026-01-0${id === "ended" ? 1 : 2}`,
    });
  }
  await db.transaction(async (tx) => {
    for (const crawlId of ["ended", "running"]) {
      const ids: number[] = [];
      for (let i = 0; i < TARGETS; i++) {
        const t = targetFor(i);
        const row = await tx.get<{ id: number }>(
          `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken)
           VALUES ($crawlId, $url, 1, 1, $state, $status, $broken) RETURNING id`,
          { crawlId, url: `http://example.test/t${i}`, state: t.state, status: t.status, broken: t.broken },
        );
        ids.push(row!.id);
      }
      // 500 links a statement: one round trip each on PostgreSQL, where one a link made the fixture most of the file's time.
      for (let first = 0; first < LINKS; first += 500) {
        const values: string[] = [];
        const params: Record<string, string | number> = { crawlId };
        for (let j = first; j < Math.min(LINKS, first + 500); j++) {
          // A deterministic, uneven walk over the targets.
          values.push(`($crawlId, $s${j}, $t${j}, $x${j}, 'anchor')`);
          params[`s${j}`] = `http://example.test/p${j >> 6}`;
          params[`t${j}`] = ids[(j * 7919 + (j >> 3)) % TARGETS]!;
          params[`x${j}`] = `link ${j}`;
        }
        await tx.run(`INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ${values.join(", ")}`, params);
      }
    }
  });
  // What the crawler keeps in step with the links (frontier.repo.ts), here derived from the rows themselves:
  // the counters, the broken-link list and the per-status totals.
  await db.run(`INSERT INTO broken_links (link_id, crawl_id, target_id)
    SELECT l.id, l.crawl_id, l.target_id FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE t.state = 'done' AND t.is_broken = 1`);
  await db.run(`INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links)
    SELECT l.crawl_id, t.status_code, t.is_broken, COUNT(*) FROM links l JOIN crawl_targets t ON t.id = l.target_id
    WHERE t.state = 'done' GROUP BY l.crawl_id, t.status_code, t.is_broken`);
  await db.run(`UPDATE crawls SET
    total_links = (SELECT COUNT(*) FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE l.crawl_id = crawls.id AND t.state = 'done'),
    broken_links = (SELECT COUNT(*) FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE l.crawl_id = crawls.id AND t.state = 'done' AND t.is_broken = 1)`);
  // PostgreSQL plans by statistics, which a table filled a moment ago lacks until autovacuum's analyze: without
  // them the listing's queries took 5-10 s a test here instead of 0.05-0.4 s. SQLite is left as the appliance runs it.
  if (db.dialect.name === "postgres") await db.run("ANALYZE");
}

/** The plain answer: every matching row in id order, then sliced. */
async function expected(db: Db, crawlId: string, filter: LinkFilter): Promise<string[]> {
  const rows = await db.all<{ link_text: string; status_code: number; is_broken: number }>(
    `SELECT l.link_text, t.status_code, t.is_broken FROM links l JOIN crawl_targets t ON t.id = l.target_id
     WHERE l.crawl_id = $crawlId AND t.state = 'done' ORDER BY l.id`,
    { crawlId },
  );
  return rows
    .filter(
      (row) =>
        (filter.statusCode === undefined || row.status_code === filter.statusCode) &&
        (filter.isBroken === undefined || (row.is_broken === 1) === filter.isBroken),
    )
    .map((row) => row.link_text);
}

const FILTERS: LinkFilter[] = [{}, { isBroken: true }, { isBroken: false }, { statusCode: 404 }, { statusCode: 301, isBroken: false }, { statusCode: 418 }];

const texts = (page: { link_text: string }[]) => page.map((link) => link.link_text);

forEachDialect("link listings", (store) => {
  let repo: CrawlsRepo;
  let links: LinksRepo;

  beforeAll(async () => {
    repo = new CrawlsRepo(store());
    links = new LinksRepo(store());
    await fill(store());
  }, 60_000);

  /** A links repo over the same store whose clock and background slices the test drives. */
  function drivenRepo(): { repo: LinksRepo; advance(ms: number): void; slices: (() => unknown)[] } {
    let now = 0;
    const slices: (() => unknown)[] = [];
    const driven = new LinksRepo(store(), { marks: { movingMaxAgeMs: 1_000, now: () => now, defer: (task) => void slices.push(task) } });
    return {
      repo: driven,
      advance: (ms) => {
        now += ms;
      },
      slices,
    };
  }

  test.each([16, 64])(
    "every page of an ended crawl matches plain OFFSET, for every filter, in any order of requests (%i marks a statement)",
    async (sliceMarks) => {
      const crawl = (await repo.findById("ended"))!;
      expect(crawl.total_links).toBeGreaterThan(3 * MARK_STRIDE);
      // A fresh repo each time: its marks are found again, in slices of this size (64: a PostgreSQL node's).
      const links = new LinksRepo(store(), { marks: { sliceMarks } });
      for (const filter of FILTERS) {
        const all = await expected(store(), "ended", filter);
        expect(await links.count(crawl, filter)).toBe(all.length);
        // Deep first (marks are found on the way), then shallow, then around mark boundaries and past the end.
        const offsets = [all.length - 1, 0, 1, 999, 1000, 1001, 2_997, 3_000, 2 * MARK_STRIDE - 50, all.length, all.length + 5_000].filter((at) => at >= 0);
        for (const offset of offsets) {
          for (const limit of [1, 100]) {
            const page = texts(await links.page(crawl, filter, offset, limit));
            expect({ filter, offset, limit, page }).toEqual({ filter, offset, limit, page: all.slice(offset, offset + limit) });
          }
        }
      }
    },
    30_000,
  );

  test("a running crawl's deep pages use positions at most max-age old, refreshed in slices between requests", async () => {
    const { repo: driven, advance, slices } = drivenRepo();
    const crawl = (await repo.findById("running"))!;
    const offset = 2_550;
    const before = await expected(store(), "running", {});
    expect(texts(await driven.page(crawl, {}, offset, 5))).toEqual(before.slice(offset, offset + 5));

    // Queued targets get checked: earlier rows join the listing, every later position shifts.
    await store().run("UPDATE crawl_targets SET state = 'done', status_code = 200, is_broken = 0 WHERE crawl_id = 'running' AND state = 'queued'");
    const after = await expected(store(), "running", {});
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.slice(offset, offset + 5)).not.toEqual(before.slice(offset, offset + 5));

    // Within the max age the remembered position is used: the page starts 50 rows after the link that was at
    // position 2,499 (the mark before 2,500) when the marks were found, counted in the current listing.
    const stale = texts(await driven.page(crawl, {}, offset, 5));
    const at = after.indexOf(before[2_499]!) + 1 + (offset - 2_500);
    expect(stale).toEqual(after.slice(at, at + 5));
    expect(stale).not.toEqual(after.slice(offset, offset + 5));
    expect(slices).toHaveLength(0);

    // Past the max age a request still answers from the old marks and starts a refresh, which runs in slices.
    advance(1_001);
    expect(texts(await driven.page(crawl, {}, offset, 5))).toEqual(stale);
    expect(slices).toHaveLength(1);
    let ran = 0;
    while (slices.length > 0 && ran < 100) {
      await slices.shift()!(); // a slice's statements are awaited: on PostgreSQL each is a round trip
      ran++;
      if (slices.length > 0) expect(texts(await driven.page(crawl, {}, offset, 5))).toEqual(stale); // old marks until done
    }
    expect(ran).toBeGreaterThan(1); // 25 marks deep, 16 per slice
    expect(texts(await driven.page(crawl, {}, offset, 5))).toEqual(after.slice(offset, offset + 5));
    // Fresh again: no new refresh until the max age passes once more.
    expect(slices).toHaveLength(0);
  }, 30_000);

  test("a running crawl's pages match plain OFFSET for every filter while nothing changes", async () => {
    const { repo: driven } = drivenRepo();
    const crawl = (await repo.findById("running"))!;
    for (const filter of FILTERS) {
      const all = await expected(store(), "running", filter);
      for (const offset of [all.length - 1, 0, 1_001, 3_000, all.length + 10].filter((at) => at >= 0)) {
        expect(texts(await driven.page(crawl, filter, offset, 100))).toEqual(all.slice(offset, offset + 100));
      }
    }
  }, 30_000);

  test("streaming a crawl's links yields every checked link once, in order", async () => {
    expect(texts((await Array.fromAsync(links.each("ended"))).flat())).toEqual(await expected(store(), "ended", {}));
  });
});

test("a first deep page's positions are found a slice at a time, with the thread free in between, then read in one step", async () => {
  const slices: (() => void)[] = [];
  const marks = new LinkMarks({ defer: (task) => slices.push(task) });
  let finds = 0;
  // A listing of 10,000 rows with ids 1..10000: every `stride`-th row of the next stride × count after `afterId`.
  const find = async (afterId: number, stride: number, count: number) => {
    const ids: number[] = [];
    for (let k = 1; k <= count && afterId + k * stride <= 10_000; k++) ids.push(afterId + k * stride);
    finds++;
    return ids;
  };
  let done = false;
  const reaching = marks.reach("l", 5_000, find).then(() => {
    done = true;
  });
  // Bounded: 50 marks in slices of 16 is 4 slices (one statement each); at most 10 turns are allowed.
  for (let turn = 0; turn < 10 && !done; turn++) {
    await Bun.sleep(0); // the slice under way finds its marks, then defers the next
    expect(finds).toBeLessThanOrEqual(turn + 1); // one slice per turn of the event loop
    slices.shift()?.();
  }
  await reaching;
  expect(finds).toBe(4);
  expect(await marks.seek("l", 5_000, find)).toEqual({ afterId: 5_000, skip: 0 });
  expect(finds).toBe(4); // seek found nothing more
});

test("many first requests for one deep page at once share each statement of the walk", async () => {
  const marks = new LinkMarks();
  let finds = 0;
  const find = async (afterId: number, stride: number, count: number) => {
    finds++;
    await Bun.sleep(5); // a store a round trip away: every caller arrives while the statement is under way
    const ids: number[] = [];
    for (let k = 1; k <= count && afterId + k * stride <= 100_000; k++) ids.push(afterId + k * stride);
    return ids;
  };
  const starts = await Promise.all(Array.from({ length: 200 }, () => marks.seek("l", 50_000, find)));
  expect(starts.every((start) => start.afterId === 50_000 && start.skip === 0)).toBe(true);
  // 500 marks at 16 a statement: 32 statements, as one caller alone would send.
  expect(finds).toBe(32);
  // A PostgreSQL node's 64 a statement: 8.
  const bigger = new LinkMarks({ sliceMarks: 64 });
  finds = 0;
  await Promise.all(Array.from({ length: 200 }, () => bigger.seek("l", 50_000, find)));
  expect(finds).toBe(8);
});

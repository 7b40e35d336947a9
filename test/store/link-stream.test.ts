import { beforeAll, expect, test } from "bun:test";
import type { Db } from "../../src/store/db.ts";
import type { LinkRecord } from "../../src/store/link-record.ts";
import { LinksRepo } from "../../src/store/links.repo.ts";
import { TargetVerdicts } from "../../src/store/target-verdicts.ts";
import { forEachDialect } from "../helpers/dbs.ts";

/**
 * The whole-crawl link stream (`LinksRepo.each`, what `check` writes its report from) takes each link's
 * verdict from its target held in arrays instead of a join per link. Checked here against the plain join over
 * the same rows: targets of two crawls interleaved by id (so one crawl's span holds the other's targets),
 * redirected targets (final URL not their own), errors, warnings, targets still queued or robots-skipped, and
 * links in an order unrelated to their targets'. Broken links take their broken_since from broken_links, read
 * beside the links in link order. The SQL-join fallback (a span too big for the arrays) must give the same stream.
 * On both dialects.
 */

// More checked targets per crawl than one batch of the verdict load (1,000).
const TARGETS = 1_300;
const LINKS = 4_321;
const CRAWLS = ["a", "b"] as const;

type TargetRow = {
  state: string;
  status: number | null;
  broken: number | null;
  error: string | null;
  warning: string | null;
  finalUrl: (url: string) => string | null;
};

function targetFor(i: number): TargetRow {
  const plain = { error: null, warning: null, finalUrl: (url: string) => url };
  if (i % 37 === 0) return { ...plain, state: "queued", status: null, broken: null, finalUrl: () => null };
  if (i % 41 === 0) return { ...plain, state: "skipped", status: null, broken: null, finalUrl: () => null };
  if (i % 13 === 0) return { state: "done", status: 0, broken: 1, error: "connection refused", warning: null, finalUrl: () => null };
  if (i % 7 === 0) return { ...plain, state: "done", status: 404, broken: 1 };
  if (i % 5 === 0) return { ...plain, state: "done", status: 200, broken: 0, finalUrl: (url) => `${url}/moved` };
  if (i % 11 === 0) return { ...plain, state: "done", status: 200, broken: 0, warning: "redirect loop avoided" };
  // More broken links than one batch of their broken_since (1,000) per crawl.
  if (i % 3 === 0) return { ...plain, state: "done", status: 410, broken: 1 };
  return { ...plain, state: "done", status: 200, broken: 0 };
}

/** The fixture: crawls a and b interleaved, an empty crawl, and the broken links of both. */
async function fill(db: Db): Promise<void> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  for (const id of [...CRAWLS, "empty"]) {
    await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ($id, 'd1', 'completed', '{}', '2026-01-01')", { id });
  }
  await db.transaction(async (tx) => {
    const ids: Record<string, number[]> = { a: [], b: [] };
    // Interleaved: crawl a's ids are the odd ones, b's the even ones.
    for (let i = 0; i < TARGETS; i++) {
      for (const crawlId of CRAWLS) {
        const t = targetFor(crawlId === "a" ? i : i + 3);
        // Some URLs as an invalid href is recorded (non-ASCII, astral): the arrays hold each batch's URLs as one text.
        const url = i % 17 === 0 ? `http://example.test/${crawlId}/café-😀-${i}` : `http://example.test/${crawlId}/t${i}`;
        const row = await tx.get<{ id: number }>(
          `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, error, warning, final_url)
           VALUES ($crawlId, $url, 1, 1, $state, $status, $broken, $error, $warning, $finalUrl) RETURNING id`,
          { crawlId, url, state: t.state, status: t.status, broken: t.broken, error: t.error, warning: t.warning, finalUrl: t.finalUrl(url) },
        );
        ids[crawlId]!.push(row!.id);
      }
    }
    for (let j = 0; j < LINKS; j++) {
      for (const crawlId of CRAWLS) {
        const target = ids[crawlId]![(j * 7919 + (j >> 3)) % TARGETS]!;
        await tx.run("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ($crawlId, $source, $target, $text, $kind)", {
          crawlId,
          source: `http://example.test/${crawlId}/p${j >> 6}`,
          target,
          text: `link ${j}`,
          kind: j % 9 === 0 ? "image" : "anchor",
        });
      }
    }
    // Every link to a checked broken target is a broken link, each broken since a day of its own.
    await tx.run(
      `INSERT INTO broken_links (link_id, crawl_id, target_id, broken_since)
       SELECT l.id, l.crawl_id, l.target_id, '2026-01-' || CASE WHEN 1 + l.id % 28 < 10 THEN '0' ELSE '' END || (1 + l.id % 28) || 'T00:00:00.000Z'
       FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE t.state = 'done' AND t.is_broken = 1`,
    );
  });
}

/** The plain answer: each link joined with its checked target, in link id order. */
async function joined(db: Db, crawlId: string): Promise<LinkRecord[]> {
  const rows = await db.all<Omit<LinkRecord, "is_broken"> & { is_broken: number }>(
    `SELECT t.url, l.source_url, t.status_code, t.is_broken, l.link_text, l.kind, t.final_url, t.error, t.warning, b.broken_since
     FROM links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
     WHERE l.crawl_id = $crawlId AND t.state = 'done' ORDER BY l.id`,
    { crawlId },
  );
  return rows.map((row) => ({ ...row, is_broken: row.is_broken === 1 }));
}

/** Every link a stream of batches yields, in order. */
async function streamed(batches: AsyncIterable<LinkRecord[]>): Promise<LinkRecord[]> {
  return (await Array.fromAsync(batches)).flat();
}

forEachDialect("the whole-crawl link stream", (store) => {
  beforeAll(() => fill(store()), 60_000);

  test("LinksRepo.each streams every checked link with its target's verdict, in discovery order", async () => {
    for (const crawlId of CRAWLS) {
      const expected = await joined(store(), crawlId);
      expect(await streamed(new LinksRepo(store()).each(crawlId))).toEqual(expected);
      // The fixture holds every kind of target the arrays treat differently, so the comparison covers them.
      expect(expected.some((link) => link.final_url !== link.url && link.final_url !== null)).toBe(true);
      expect(expected.some((link) => link.final_url === null && link.error !== null)).toBe(true);
      expect(expected.some((link) => link.warning !== null)).toBe(true);
      expect(expected.length).toBeLessThan(LINKS);
      expect(expected.filter((link) => link.broken_since !== null).length).toBeGreaterThan(1_000);
    }
  });

  test("the caller decides the collections: its betweenBatches runs after each batch of verdicts loaded, before any link", async () => {
    const seen: string[] = [];
    const links = new LinksRepo(store()).each("a", () => seen.push("batch"));
    await links.next();
    seen.push("first batch of links");
    await links.return(undefined);
    // 1,300 targets of crawl a, fewer of them checked: two batches of the load (1,000 each).
    expect(seen).toEqual(["batch", "batch", "first batch of links"]);
  });

  test("a crawl whose targets span more ids than the arrays may hold is joined in SQL, with the same result", async () => {
    const { span } = (await store().get<{ span: number }>("SELECT MAX(id) - MIN(id) + 1 AS span FROM crawl_targets WHERE crawl_id = 'a' AND state = 'done'"))!;
    expect(await TargetVerdicts.load(store(), "a", span)).not.toBeNull();
    expect(await TargetVerdicts.load(store(), "a", span - 1)).toBeNull();
    const narrow = new LinksRepo(store(), { maxVerdictSpan: 10 });
    for (const crawlId of CRAWLS) expect(await streamed(narrow.each(crawlId))).toEqual(await joined(store(), crawlId));
  });

  test("a crawl without checked targets streams nothing, either way", async () => {
    expect(await streamed(new LinksRepo(store()).each("empty"))).toEqual([]);
    expect(await streamed(new LinksRepo(store(), { maxVerdictSpan: -1 }).each("empty"))).toEqual([]);
    expect(await streamed(new LinksRepo(store()).each("no-such-crawl"))).toEqual([]);
  });

  test("each record is a fresh object: changing one changes no other", async () => {
    const [first, second] = (await streamed(new LinksRepo(store()).each("a"))).filter((link, _, all) => link.url === all[0]!.url);
    expect(second).toBeDefined();
    first!.status_code = 999;
    expect(second!.status_code).not.toBe(999);
  });

  test("TargetVerdicts answers only for checked targets of its crawl", async () => {
    const verdicts = (await TargetVerdicts.load(store(), "a"))!;
    const rows = await store().all<{ id: number; crawl_id: string; state: string }>("SELECT id, crawl_id, state FROM crawl_targets ORDER BY id");
    let answered = 0;
    for (const row of rows) {
      const link = verdicts.link(row.id, "http://example.test/", "text", "anchor");
      expect(link !== undefined).toBe(row.crawl_id === "a" && row.state === "done");
      if (link !== undefined) answered++;
    }
    expect(answered).toBeGreaterThan(0);
    expect(verdicts.link(-5, "s", "t", "anchor")).toBeUndefined();
    expect(verdicts.link(rows.at(-1)!.id + 100, "s", "t", "anchor")).toBeUndefined();
  });
});

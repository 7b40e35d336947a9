import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UNLINKED_DEPTH } from "../../src/core/sitemap-entry.ts";
import type { Db } from "../../src/store/db.ts";
import { DigestRepo } from "../../src/store/digest.repo.ts";
import { LinksRepo } from "../../src/store/links.repo.ts";
import { OutboxRepo } from "../../src/store/outbox.repo.ts";
import { TARGET_SORTS, SOURCE_SORTS, type BrokenTargetFilter } from "../../src/store/target-results.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The read side of an ended crawl (issue 43) on both dialects: grouped results (every sort, every filter, hosts,
 * a target's sources, the filtered stream), orphan pages, what changed since the previous crawl, the digest's
 * lists, the broken sample, and the outbox's channel side. One small crawl, facts checked by hand; then every
 * query is asked of both stores and must answer the same.
 */

const CUR = "01a20460-0000-7000-8000-0000000000c2";
const PREV = "01a20460-0000-7000-8000-0000000000c1";
const SITE = "http://site.test";

/** Inserts a target; its id. */
async function target(
  db: Db,
  crawlId: string,
  url: string,
  verdict: { status: number; broken: number; error?: string; warning?: string; depth?: number; internal?: number },
) {
  const row = await db.get<{ id: number }>(
    `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, error, warning, final_url)
     VALUES ($crawlId, $url, $internal, $depth, 'done', $status, $broken, $error, $warning, $finalUrl) RETURNING id`,
    {
      crawlId,
      url,
      internal: verdict.internal ?? (url.startsWith(SITE) ? 1 : 0),
      depth: verdict.depth ?? 1,
      status: verdict.status,
      broken: verdict.broken,
      error: verdict.error ?? null,
      warning: verdict.warning ?? null,
      finalUrl: verdict.status === 0 ? null : url,
    },
  );
  return row!.id;
}

/** Inserts a link (and its broken_links row when `since` is given); its id. */
async function link(
  db: Db,
  crawlId: string,
  source: string,
  targetId: number,
  text: string,
  extra: { kind?: string; fragment?: string; fragmentError?: string; since?: string } = {},
) {
  const row = await db.get<{ id: number }>(
    `INSERT INTO links (crawl_id, source_url, target_id, link_text, kind, fragment, fragment_error)
     VALUES ($crawlId, $source, $targetId, $text, $kind, $fragment, $fragmentError) RETURNING id`,
    { crawlId, source, targetId, text, kind: extra.kind ?? "anchor", fragment: extra.fragment ?? "", fragmentError: extra.fragmentError ?? null },
  );
  if (extra.since !== undefined) {
    await db.run("INSERT INTO broken_links (link_id, crawl_id, target_id, broken_since) VALUES ($id, $crawlId, $targetId, $since)", {
      id: row!.id,
      crawlId,
      targetId,
      since: extra.since,
    });
  }
  return row!.id;
}

async function unchecked(db: Db, crawlId: string, source: string, url: string) {
  await db.run(
    `INSERT INTO unchecked_links (crawl_id, source_url, url, kind, internal, link_text, status_code, cause, broken_since)
     VALUES ($crawlId, $source, $url, 'anchor', 1, 'carried', 404, 'answer', '2025-12-01')`,
    { crawlId, source, url },
  );
}

async function fill(db: Db): Promise<void> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'site.test', 'http://site.test/', 'tok')");
  for (const [id, status, at] of [
    [PREV, "failed", "2026-01-01"],
    [CUR, "completed", "2026-01-02"],
  ] as const) {
    await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES ($id, 'd1', $status, '{}', $at, $at)", { id, status, at });
  }
  // The previous crawl left open: / → /missing and / → /fixed broken, /b → /carried carried unchecked.
  const pMissing = await target(db, PREV, `${SITE}/missing`, { status: 404, broken: 1 });
  const pFixed = await target(db, PREV, `${SITE}/fixed`, { status: 404, broken: 1 });
  await link(db, PREV, `${SITE}/`, pMissing, "Missing", { since: "2025-12-01" });
  await link(db, PREV, `${SITE}/`, pFixed, "Fixed", { since: "2025-12-01" });
  await unchecked(db, PREV, `${SITE}/b`, `${SITE}/carried`);

  const home = await target(db, CUR, `${SITE}/`, { status: 200, broken: 0, depth: 0 });
  const missing = await target(db, CUR, `${SITE}/missing`, { status: 404, broken: 1 });
  // A broken target with a warning: the warning listing then mixes targets broken since a day and never broken.
  const ext = await target(db, CUR, "http://ext.test:8080/x", { status: 500, broken: 1, warning: "slow answer" });
  const down = await target(db, CUR, "http://down.test/", { status: 0, broken: 1, error: "connection refused" });
  const wall = await target(db, CUR, "http://EXT.test:8080/wall", { status: 403, broken: 0, warning: "bot wall" });
  await target(db, CUR, `${SITE}/orphan`, { status: 200, broken: 0, depth: UNLINKED_DEPTH });
  await target(db, CUR, `${SITE}/orphan-gone`, { status: 404, broken: 1, depth: UNLINKED_DEPTH });
  await link(db, CUR, `${SITE}/`, missing, "Missing", { since: "2025-12-01" });
  await link(db, CUR, `${SITE}/`, ext, "Ext", { since: "2026-01-02" });
  await link(db, CUR, `${SITE}/a`, missing, "Missing again", { since: "2026-01-02" });
  await link(db, CUR, `${SITE}/a`, down, "Down", { kind: "image", since: "2026-01-02" });
  await link(db, CUR, `${SITE}/`, wall, "Wall");
  await link(db, CUR, `${SITE}/`, home, "Home", { fragment: "#nope", fragmentError: "fragment #nope not found", since: "2026-01-02" });
  await unchecked(db, CUR, `${SITE}/c`, `${SITE}/c-carried`);
  await db.run(
    `UPDATE crawls SET total_links = (SELECT COUNT(*) FROM links WHERE crawl_id = crawls.id),
       broken_links = (SELECT COUNT(*) FROM broken_links WHERE crawl_id = crawls.id)`,
  );
}

const FILTERS: BrokenTargetFilter[] = [
  {},
  { statusClass: "4xx" },
  { statusClass: "5xx" },
  { statusClass: "network" },
  { statusClass: "warning" },
  { statusCode: 404 },
  { kind: "image" },
  { internal: true },
  { internal: false },
  { search: "EXT.TEST" },
  { search: "100%_" },
  { host: "ext.test:8080" },
  { host: "site.test" },
];

/** Every read of the fixture, by name: what the two stores must answer alike. */
async function everything(db: Db): Promise<Record<string, unknown>> {
  const links = new LinksRepo(db);
  const answers: Record<string, unknown> = {};
  for (const [i, filter] of FILTERS.entries()) {
    answers[`count ${i}`] = await links.results.count(CUR, filter);
    answers[`hosts ${i}`] = await links.results.hosts(CUR, filter, 10);
    answers[`stream ${i}`] = (await Array.fromAsync(links.results.links(CUR, filter))).flat();
    for (const by of TARGET_SORTS) {
      for (const descending of [false, true]) answers[`page ${i} ${by} ${descending}`] = await links.results.page(CUR, filter, { by, descending }, 0, 10);
    }
    const targets = await links.results.page(CUR, filter, { by: "found", descending: false }, 0, 10);
    for (const found of targets) {
      answers[`sources count ${i} ${found.url}`] = await links.results.countSources(CUR, found.target_id, filter);
      for (const by of SOURCE_SORTS)
        answers[`sources ${i} ${found.url} ${by}`] = await links.results.sources(CUR, found.target_id, filter, { by, descending: true }, 0, 10);
    }
  }
  answers.orphans = await links.orphans.page(CUR, 0, 10);
  answers["orphans count"] = await links.orphans.count(CUR);
  answers["orphans stream"] = (await Array.fromAsync(links.orphans.each(CUR))).flat();
  for (const fragments of [false, true]) {
    const against = { id: PREV, fragments };
    answers[`new broken ${fragments}`] = await links.changes.newBroken(CUR, against, 0, 10);
    answers[`new broken count ${fragments}`] = await links.changes.countNewBroken(CUR, against);
    answers[`closed ${fragments}`] = await links.changes.closed(CUR, against, 0, 10);
    answers[`closed count ${fragments}`] = await links.changes.countClosed(CUR, against);
  }
  answers["new broken, no previous"] = await links.changes.countNewBroken(CUR, null);
  answers.unchecked = await links.changes.unchecked(CUR, 0, 10);
  answers["unchecked count"] = await links.changes.countUnchecked(CUR);
  const digest = new DigestRepo(db);
  for (const list of ["new_broken", "still_broken", "fixed"] as const) {
    answers[`digest count ${list}`] = await digest.count(list, CUR, { id: PREV, fragments: false });
    answers[`digest rows ${list}`] = await digest.rows(list, CUR, { id: PREV, fragments: false }, 2, 1);
  }
  answers["digest previous"] = await digest.previousEnded(CUR);
  answers["digest not checked"] = await digest.notChecked(CUR);
  answers.sample = await links.brokenSample(CUR);
  answers.each = (await Array.fromAsync(links.each(CUR))).flat();
  answers["each broken"] = (await Array.fromAsync(links.eachBroken(CUR))).flat();
  answers["links page"] = await links.page({ id: CUR, status: "completed" }, { statusCode: 404 }, 0, 10);
  return answers;
}

const opened: { name: string; store: TestDb }[] = [];

beforeAll(async () => {
  for (const dialect of DIALECTS.filter((each) => each.available)) {
    const store = await dialect.open();
    await fill(store.db);
    opened.push({ name: dialect.name, store });
  }
}, 30_000);
afterAll(async () => {
  for (const { store } of opened) await store.close();
});

const db = (name = "sqlite") => opened.find((each) => each.name === name)!.store.db;

describe("an ended crawl's results", () => {
  test("grouped by target: counts, hosts, the sorted page and a target's sources", async () => {
    const links = new LinksRepo(db());
    expect(await links.results.count(CUR, {})).toEqual({ targets: 4, links: 5, broken: 5 });
    expect(await links.results.count(CUR, { statusClass: "warning" })).toEqual({ targets: 2, links: 2, broken: 1 });
    // A target never broken has no broken_since: it sorts first going up and last going down, on either engine.
    const since = async (descending: boolean) =>
      (await links.results.page(CUR, { statusClass: "warning" }, { by: "since", descending }, 0, 10)).map((row) => row.broken_since);
    expect(await since(false)).toEqual([null, "2026-01-02"]);
    expect(await since(true)).toEqual(["2026-01-02", null]);
    const byLinks = await links.results.page(CUR, {}, { by: "links", descending: true }, 0, 10);
    expect(byLinks.map((row) => [row.url, row.links])).toEqual([
      [`${SITE}/missing`, 2],
      [`${SITE}/`, 1], // ties in discovery order of the targets
      ["http://ext.test:8080/x", 1],
      ["http://down.test/", 1],
    ]);
    expect(byLinks[0]).toMatchObject({ host: "site.test", internal: true, target_broken: true, broken_since: "2025-12-01" });
    expect(byLinks[1]).toMatchObject({ target_broken: false, status_code: 200 });
    expect((await links.results.hosts(CUR, {}, 10)).items).toEqual([
      { host: "site.test", targets: 2, links: 3 },
      { host: "down.test", targets: 1, links: 1 },
      { host: "ext.test:8080", targets: 1, links: 1 },
    ]);
    // The host filter and search ignore ASCII case: the warning's target is written EXT.test.
    expect(
      (await links.results.page(CUR, { statusClass: "warning", host: "ext.test:8080" }, { by: "url", descending: false }, 0, 10)).map((row) => row.url),
    ).toEqual(["http://EXT.test:8080/wall", "http://ext.test:8080/x"]);
    expect((await links.results.count(CUR, { search: "ext.TEST" })).targets).toBe(1);
    expect((await links.results.count(CUR, { search: "100%_" })).targets).toBe(0);
    const missing = byLinks[0]!.target_id;
    expect((await links.results.sources(CUR, missing, {}, { by: "text", descending: false }, 0, 10)).map((row) => row.link_text)).toEqual([
      "Missing",
      "Missing again",
    ]);
    expect(await links.results.target(CUR, missing)).toMatchObject({ url: `${SITE}/missing`, status_code: 404, internal: true });
    expect(await links.results.target(PREV, missing)).toBeUndefined();
  });

  test("orphan pages, the changes since the previous crawl and the digest's lists", async () => {
    const links = new LinksRepo(db());
    expect((await links.orphans.page(CUR, 0, 10)).map((row) => [row.url, row.is_broken])).toEqual([
      [`${SITE}/orphan`, false],
      [`${SITE}/orphan-gone`, true],
    ]);
    const against = { id: PREV, fragments: false };
    expect((await links.changes.newBroken(CUR, against, 0, 10)).map((row) => `${row.source_url} → ${row.url}`)).toEqual([
      `${SITE}/ → http://ext.test:8080/x`,
      `${SITE}/a → ${SITE}/missing`,
      `${SITE}/a → http://down.test/`,
      `${SITE}/ → ${SITE}/#nope`,
    ]);
    expect((await links.changes.closed(CUR, against, 0, 10)).map((row) => `${row.source_url} → ${row.url}`)).toEqual([
      `${SITE}/ → ${SITE}/fixed`,
      `${SITE}/b → ${SITE}/carried`,
    ]);
    expect(await links.changes.countUnchecked(CUR)).toBe(1);
    const digest = new DigestRepo(db());
    expect(await digest.count("new_broken", CUR, against)).toEqual({ links: 4, targets: 4 });
    expect(await digest.count("still_broken", CUR, against)).toEqual({ links: 1, targets: 1 });
    expect(await digest.count("fixed", CUR, against)).toEqual({ links: 2, targets: 2 });
    expect(await digest.previousEnded(CUR)).toEqual({ status: "failed", failure: null });
    expect(await links.brokenSample(CUR)).toEqual([
      { url: `${SITE}/`.concat("#nope"), status_code: 200 },
      { url: `${SITE}/missing`, status_code: 404 },
      { url: "http://ext.test:8080/x", status_code: 500 },
      { url: "http://down.test/", status_code: 0 },
    ]);
  });

  test.skipIf(DIALECTS.some((each) => !each.available))(
    "every read answers the same on SQLite and PostgreSQL",
    async () => {
      const sqlite = await everything(db("sqlite"));
      const postgres = await everything(db("postgres"));
      for (const key of Object.keys(sqlite)) expect({ key, answer: postgres[key] }).toEqual({ key, answer: sqlite[key] });
    },
    30_000,
  );
});

describe("the outbox's channel side", () => {
  test("active channels for a domain, every-domain ones included, each digest delivery with its own id", async () => {
    for (const { store } of opened) {
      const outbox = new OutboxRepo(store.db);
      await store.db.run(
        `INSERT INTO channels (id, name, kind, settings, secrets, notify_when, all_domains, active, created_at) VALUES
           ('c1', 'all', 'slack', '{}', '{}', 'always', 1, 1, '2026-01-01'),
           ('c2', 'd1 only', 'slack', '{}', '{}', 'failure', 0, 1, '2026-01-02'),
           ('c3', 'other', 'slack', '{}', '{}', 'changed', 0, 1, '2026-01-03'),
           ('c4', 'off', 'slack', '{}', '{}', 'changed', 1, 0, '2026-01-04')`,
      );
      await store.db.run("INSERT INTO channel_domains (channel_id, domain_id) VALUES ('c2', 'd1')");
      expect(await outbox.channelsFor("d1")).toEqual([
        { id: "c1", notify_when: "always" },
        { id: "c2", notify_when: "failure" },
      ]);
      await outbox.enqueueForChannels(["c1", "c2"], "crawl.digest", "2026-01-02T00:00:00.000Z", { crawl_id: CUR }, "2026-01-02T00:00:01.000Z");
      const rows = await store.db.all<{ channel_id: string; payload: string }>("SELECT channel_id, payload FROM webhook_deliveries ORDER BY channel_id");
      expect(rows.map((row) => row.channel_id)).toEqual(["c1", "c2"]);
      const payloads = rows.map((row) => JSON.parse(row.payload));
      expect(payloads[0].data).toEqual({ crawl_id: CUR });
      expect(payloads[0].id).not.toBe(payloads[1].id);
    }
  });
});

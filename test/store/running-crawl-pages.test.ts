import { afterAll, beforeAll, expect, test } from "bun:test";
import { CrawlsService, type CrawlRunner } from "../../src/services/crawls.service.ts";
import type { DomainsService } from "../../src/services/domains.service.ts";
import { CrawlsRepo } from "../../src/store/crawls.repo.ts";
import { LinksRepo } from "../../src/store/links.repo.ts";
import { openStore, type Store } from "../../src/store/sqlite.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { Frontier } from "../../src/crawler/frontier.ts";
import { completeCrawl } from "../../src/crawler/crawl-transitions.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";

/**
 * Pages of a running crawl's links. These tests record a running crawl's results through the crawler's own
 * frontier code (Frontier) batch by batch and check that every read answers what the store holds at that moment,
 * and that a crawl's end places its deep pages exactly.
 */

const CRAWL = "01a20460-0000-7000-8000-000000000001";
const ROOT = "http://example.test/";
const LIMITS = { maxPages: 1_000, maxDepth: 10 };

let store: Store;
let repo: CrawlsRepo;
let frontier: Frontier;
let service: CrawlsService;

beforeAll(() => {
  store = openStore(":memory:");
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', ?, 'tok')", [ROOT]);
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01')", [CRAWL]);
  repo = new CrawlsRepo(new SqliteDb(store.sqlite));
  frontier = new Frontier(new SqliteDb(store.sqlite));
  // links() and broken() use neither the domains nor the runner.
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error("not used by link listings");
      },
    },
  );
  service = new CrawlsService({ repo, links: new LinksRepo(new SqliteDb(store.sqlite)), domains: unused as DomainsService, runner: unused as CrawlRunner });
});

afterAll(() => store.close());

const ok = { status_code: 200, is_broken: false, error: null, warning: null };
const gone = { status_code: 404, is_broken: true, error: null, warning: null };

function queued(): Promise<FrontierTarget[]> {
  return frontier.pull(CRAWL, 0, 1_000);
}

function check(target: FrontierTarget, verdict: typeof ok, links: string[] = []) {
  const page =
    links.length === 0 ? null : { url: target.url, links: links.map((url) => ({ url, internal: true, kind: "anchor" as const, text: url })), cut: false };
  return { kind: "checked" as const, target, verdict, finalUrl: null, redirectEnd: null, page };
}

const urls = (page: { items: { url: string }[] }) => page.items.map((item) => item.url);

test("a running crawl's pages follow every batch the crawler records", async () => {
  await frontier.seed(CRAWL, ROOT);
  const [root] = await queued();
  const children = Array.from({ length: 30 }, (_, i) => `${ROOT}p${i}`);
  await frontier.commit(CRAWL, [check(root!, ok, children)], LIMITS);

  // The root's 30 links wait for their targets: none is a result yet.
  expect(await service.links(CRAWL, {}, 1, 10)).toEqual({ items: [], total: 0 });

  // Targets p3, p1 and p0 get verdicts, in that order; the listing stays in discovery order.
  const byUrl = new Map((await queued()).map((target) => [target.url, target]));
  await frontier.commit(CRAWL, [check(byUrl.get(`${ROOT}p3`)!, ok), check(byUrl.get(`${ROOT}p1`)!, gone)], LIMITS);
  const first = await service.links(CRAWL, {}, 1, 10);
  expect(urls(first)).toEqual([`${ROOT}p1`, `${ROOT}p3`]);
  expect(first.total).toBe(2);
  expect(await service.links(CRAWL, {}, 1, 10)).toEqual(first); // nothing landed: the same page

  await frontier.commit(CRAWL, [check(byUrl.get(`${ROOT}p0`)!, ok)], LIMITS);
  const second = await service.links(CRAWL, {}, 1, 10);
  expect(urls(second)).toEqual([`${ROOT}p0`, `${ROOT}p1`, `${ROOT}p3`]);
  expect(second.total).toBe(3);
  expect(urls(await service.links(CRAWL, {}, 2, 2))).toEqual([`${ROOT}p3`]);

  // Filters and the broken listing move with the same batches.
  expect(urls(await service.broken(CRAWL, 1, 10))).toEqual([`${ROOT}p1`]);
  expect(urls(await service.links(CRAWL, { statusCode: 200 }, 1, 10))).toEqual([`${ROOT}p0`, `${ROOT}p3`]);
  await frontier.commit(CRAWL, [check(byUrl.get(`${ROOT}p2`)!, gone)], LIMITS);
  expect(await service.broken(CRAWL, 1, 10)).toEqual({ items: expect.any(Array), total: 2 });
  expect(urls(await service.broken(CRAWL, 1, 10))).toEqual([`${ROOT}p1`, `${ROOT}p2`]);
  expect(urls(await service.links(CRAWL, { statusCode: 200 }, 1, 10))).toEqual([`${ROOT}p0`, `${ROOT}p3`]);
  expect((await service.links(CRAWL, { statusCode: 404 }, 1, 10)).total).toBe(2);
});

test("pages of one crawl at many positions are slices of the whole listing", async () => {
  const everything = await service.links(CRAWL, {}, 1, 100);
  for (let page = 1; page <= 4; page++) {
    expect(urls(await service.links(CRAWL, {}, page, 1))).toEqual(urls(everything).slice(page - 1, page));
  }
});

test("a deep page placed from stale positions while the crawl ran is exact once it ends, even when no link landed in between", async () => {
  const ending = "01a20460-0000-7000-8000-000000000002";
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d2', 'other.test', 'http://other.test/', 'tok')");
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES (?, 'd2', 'running', '{}', '2026-01-02')", [ending]);
  // Positions of the running listing are remembered for an hour here, so they go stale on purpose.
  const slowLinks = new LinksRepo(new SqliteDb(store.sqlite), { marks: { movingMaxAgeMs: 3_600_000 } });
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error("not used by link listings");
      },
    },
  );
  const slow = new CrawlsService({ repo, links: slowLinks, domains: unused as DomainsService, runner: unused as CrawlRunner });
  const base = "http://other.test/";
  await frontier.seed(ending, base);
  const [root] = await frontier.pull(ending, 0, 10);
  const children = Array.from({ length: 500 }, (_, i) => `${base}p${i}`);
  await frontier.commit(ending, [check(root!, ok, children)], LIMITS);
  const byUrl = new Map((await frontier.pull(ending, 0, 1_000)).map((target) => [target.url, target]));
  const verdicts = (parity: number) => children.filter((_, i) => i % 2 === parity).map((url) => check(byUrl.get(url)!, ok));

  await frontier.commit(ending, verdicts(1), LIMITS); // odd children first
  expect(urls(await slow.links(ending, {}, 21, 10))).toEqual(children.filter((_, i) => i % 2 === 1).slice(200, 210));
  await frontier.commit(ending, verdicts(0), LIMITS); // then the even ones: every position moves
  const whileRunning = await slow.links(ending, {}, 21, 10);
  expect(whileRunning.total).toBe(500);
  expect(urls(whileRunning)).not.toEqual(children.slice(200, 210)); // placed from the stale positions

  await completeCrawl(repo, ending, { now: "2026-01-02T01:00:00Z" });
  expect(urls(await slow.links(ending, {}, 21, 10))).toEqual(children.slice(200, 210));
});

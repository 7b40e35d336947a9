import { afterEach, expect, test } from "bun:test";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * storage.retention over real crawls: crawls past max_age or beyond keep_last per domain go with their links,
 * frontier, pages and ended webhook deliveries; newer crawls, running crawls and pending deliveries stay; and the
 * API keeps answering while a large crawl is pruned chunk by chunk.
 */

let svc: TestService | undefined;
let site: LoopbackSite | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await svc?.stop();
  await site?.stop();
  await receiver?.stop();
  svc = site = receiver = undefined;
});

const DAY_MS = 86_400_000;

async function siteWithBrokenLink(): Promise<LoopbackSite> {
  return startLoopbackSite({ "/": { body: "<a href='/a'>a</a> <a href='/gone'>gone</a>" }, "/a": { body: "<a href='/'>home</a>" } });
}

async function crawlsOf(svc: TestService, domainId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await startCrawl(svc, domainId);
    expect((await waitForCrawl(svc, id)).status).toBe("completed");
    ids.push(id);
  }
  return ids;
}

function rowCounts(svc: TestService, crawlId: string): Record<"crawls" | "links" | "broken" | "statuses" | "targets" | "pages" | "deliveries", number> {
  const count = (sql: string) => (svc.runtime.store.sqlite!.query(sql).get(crawlId) as { n: number }).n;
  return {
    crawls: count("SELECT count(*) AS n FROM crawls WHERE id = ?"),
    links: count("SELECT count(*) AS n FROM links WHERE crawl_id = ?"),
    broken: count("SELECT count(*) AS n FROM broken_links WHERE crawl_id = ?"),
    statuses: count("SELECT count(*) AS n FROM crawl_status_counts WHERE crawl_id = ?"),
    targets: count("SELECT count(*) AS n FROM crawl_targets WHERE crawl_id = ?"),
    pages: count("SELECT count(*) AS n FROM crawl_pages WHERE crawl_id = ?"),
    deliveries: count("SELECT count(*) AS n FROM webhook_deliveries WHERE json_extract(payload, '$.data.crawl_id') = ?"),
  };
}

/** `count` extra link rows for the crawl, written directly: the size of a big site's crawl. */
function addLinkRows(svc: TestService, crawlId: string, count: number): void {
  const sqlite = svc.runtime.store.sqlite!;
  const targetId = (sqlite.query("SELECT min(id) AS id FROM crawl_targets WHERE crawl_id = ?").get(crawlId) as { id: number }).id;
  sqlite
    .query(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) SELECT ?, 'http://x/p' || i, ?, 't', 'anchor' FROM n`,
    )
    .run(count, crawlId, targetId);
}

function backdate(svc: TestService, crawlId: string, days: number): void {
  const at = new Date(Date.now() - days * DAY_MS).toISOString();
  svc.runtime.store.sqlite!.query("UPDATE crawls SET created_at = ?, started_at = ?, completed_at = ? WHERE id = ?").run(at, at, at, crawlId);
}

test("crawls older than max_age go with their links, frontier, pages and ended deliveries; newer ones stay", async () => {
  svc = await startTestService({
    storage: { retention: { max_age: "30d", keep_last: null } },
    webhooks: { allow_http: true, allow_private_targets: true },
  });
  site = await siteWithBrokenLink();
  receiver = await startWebhookReceiver({ tls: false });
  const hook = (await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl() } })).json.data;
  receiver.useSecret(hook.secret);
  const domainId = await verifiedDomain(svc, site.url("/"));
  const [old, recent] = await crawlsOf(svc, domainId, 2);
  // All three events of each crawl delivered.
  await receiver.waitFor((requests) => requests.length === 6, 10_000);
  for (let i = 0; i < 100 && rowCounts(svc, old!).deliveries !== 3; i++) await Bun.sleep(20);
  const before = rowCounts(svc, old!);
  expect(before).toEqual({ crawls: 1, links: 3, broken: 1, statuses: 2, targets: 3, pages: 2, deliveries: 3 });
  backdate(svc, old!, 31);
  // A still-pending delivery of the old crawl is kept: pruning never drops what has not been sent yet.
  svc.runtime.store
    .sqlite!.query(
      "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = '2999-01-01T00:00:00.000Z' WHERE id = (SELECT id FROM webhook_deliveries WHERE json_extract(payload, '$.data.crawl_id') = ? LIMIT 1)",
    )
    .run(old!);

  const report = await svc.runtime.retention.run();
  expect(report.crawls).toBe(1);
  expect(rowCounts(svc, old!)).toEqual({ crawls: 0, links: 0, broken: 0, statuses: 0, targets: 0, pages: 0, deliveries: 1 });
  expect((await svc.call("GET", `/crawls/${old}`)).status).toBe(404);
  expect(rowCounts(svc, recent!)).toEqual(before);
  expect((await svc.call("GET", `/crawls/${recent}/links`)).json.meta.total).toBe(3);
  expect((await svc.runtime.retention.run()).crawls).toBe(0);
}, 30_000); // a whole-suite run on a loaded machine took past the 5 s default

test("keep_last keeps the newest N ended crawls per domain; a running crawl neither counts nor goes", async () => {
  svc = await startTestService({ storage: { retention: { max_age: null, keep_last: 2 } } });
  site = await siteWithBrokenLink();
  const otherSite = await siteWithBrokenLink();
  try {
    const domainId = await verifiedDomain(svc, site.url("/"));
    const otherId = await verifiedDomain(svc, otherSite.url("/"));
    const ids = await crawlsOf(svc, domainId, 4);
    const other = await crawlsOf(svc, otherId, 2);
    // A crawl made to look running: never pruned, and it does not push an ended crawl out.
    svc.runtime.store.sqlite!.query("UPDATE crawls SET status = 'running', completed_at = NULL WHERE id = ?").run(ids[3]!);

    const report = await svc.runtime.retention.run();
    expect(report.crawls).toBe(1);
    const remaining = (await svc.call("GET", `/crawls?domain_id=${domainId}&limit=100`)).json.data.map((c: any) => c.id);
    expect(remaining.sort()).toEqual([ids[1], ids[2], ids[3]].sort());
    expect(rowCounts(svc, ids[0]!).links).toBe(0);
    for (const id of other) expect(rowCounts(svc, id).crawls).toBe(1);
  } finally {
    await otherSite.stop();
  }
}, 30_000);

test("the API keeps answering while a large crawl is pruned chunk by chunk", async () => {
  const service = await startTestService({ storage: { retention: { max_age: "1d", keep_last: null } } });
  svc = service;
  site = await siteWithBrokenLink();
  const domainId = await verifiedDomain(service, site.url("/"));
  const [crawlId] = await crawlsOf(service, domainId, 1);
  addLinkRows(service, crawlId!, 200_000);
  backdate(service, crawlId!, 2);

  const pruning = service.runtime.retention.run();
  let answeredDuringPrune = 0;
  for (let i = 0; i < 200; i++) {
    const res = await service.call("GET", `/crawls/${crawlId}`);
    if (res.status !== 200) break; // gone: the prune has reached the crawl row
    if (rowCounts(service, crawlId!).links > 0) answeredDuringPrune += 1;
  }
  const report = await pruning;
  // Answers came while link rows were still being deleted: the prune did not hold the database throughout.
  expect(answeredDuringPrune).toBeGreaterThan(0);
  expect(report.crawls).toBe(1);
  expect(report.rows).toBeGreaterThan(200_000);
  expect(rowCounts(service, crawlId!)).toEqual({ crawls: 0, links: 0, broken: 0, statuses: 0, targets: 0, pages: 0, deliveries: 0 });
}, 60_000); // writes and prunes a 200,000-link crawl

test("deleting a domain removes its crawls chunk by chunk, and the API keeps answering meanwhile", async () => {
  const service = await startTestService({ storage: { retention: { max_age: null, keep_last: null } } });
  svc = service;
  site = await siteWithBrokenLink();
  const domainId = await verifiedDomain(service, site.url("/"));
  const [first, second] = await crawlsOf(service, domainId, 2);
  addLinkRows(service, first!, 200_000);

  const deleting = service.call("DELETE", `/domains/${domainId}`);
  let answeredDuringDelete = 0;
  for (let i = 0; i < 400; i++) {
    const res = await service.call("GET", "/domains");
    expect(res.status).toBe(200);
    if (rowCounts(service, first!).links === 0) break;
    answeredDuringDelete += 1;
  }
  expect((await deleting).status).toBe(204);
  // Answers came while the crawl's rows were still going: the delete did not hold the database throughout.
  expect(answeredDuringDelete).toBeGreaterThan(0);
  for (const id of [first!, second!]) {
    expect(rowCounts(service, id)).toEqual({ crawls: 0, links: 0, broken: 0, statuses: 0, targets: 0, pages: 0, deliveries: 0 });
  }
  expect((await service.call("GET", `/domains/${domainId}`)).status).toBe(404);
}, 60_000); // writes 200,000 links, then deletes their domain chunk by chunk

test("pruning finds a crawl's deliveries, and old deliveries, through indexes rather than by reading the whole outbox", async () => {
  svc = await startTestService();
  const plan = (sql: string) =>
    (svc!.runtime.store.sqlite!.query(`EXPLAIN QUERY PLAN ${sql}`).all("x") as { detail: string }[]).map((row) => row.detail).join("; ");
  expect(plan("DELETE FROM webhook_deliveries WHERE state != 'pending' AND json_extract(payload, '$.data.crawl_id') = ?")).toContain(
    "USING INDEX webhook_deliveries_crawl_idx",
  );
  expect(plan("SELECT id FROM webhook_deliveries WHERE state != 'pending' AND created_at < ? LIMIT 100")).toContain(
    "USING INDEX webhook_deliveries_created_idx",
  );
});

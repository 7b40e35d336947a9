import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * DELETE /domains/{id} and a crawl in progress: refused with 409 crawl_in_progress naming the crawl, nothing of the
 * domain or its history removed; once the crawl is cancelled, the delete takes every row of every crawl along.
 */

let svc: TestService;
let site: LoopbackSite;
/** While set, /slow waits for it: a crawl stays running until the test releases it. */
let hold: Promise<void> | null = null;
let release: () => void = () => {};

beforeAll(async () => {
  svc = await startTestService({ storage: { retention: { max_age: null, keep_last: null } } });
  site = await startLoopbackSite({
    "/": { body: `<a href="/a">a</a> <a href="/missing">missing</a> <a href="/slow">slow</a>` },
    "/a": { body: `<a href="/">home</a>` },
    "/slow": async () => {
      if (hold !== null) await hold;
      return new Response("late", { headers: { "content-type": "text/html" } });
    },
  });
});
afterAll(async () => {
  release();
  await svc?.stop();
  await site?.stop();
});

const TABLES = ["crawl_targets", "links", "broken_links", "crawl_status_counts", "crawl_pages"];
const rowsOf = (crawlId: string) =>
  TABLES.map((table) => (svc.runtime.store.sqlite!.query(`SELECT count(*) AS n FROM ${table} WHERE crawl_id = ?`).get(crawlId) as { n: number }).n).reduce(
    (a, b) => a + b,
    0,
  );

describe("DELETE /domains/{id} while a crawl runs", () => {
  test("409 naming the crawl, then, once it is cancelled, 204 and every row of its history gone", async () => {
    const domainId = await verifiedDomain(svc, site.url("/"));
    const first = await startCrawl(svc, domainId);
    expect((await waitForCrawl(svc, first)).status).toBe("completed");
    hold = new Promise<void>((resolve) => (release = resolve));
    const running = await startCrawl(svc, domainId);
    const refused = expectErrorEnvelope(await svc.call("DELETE", `/domains/${domainId}`), 409, "crawl_in_progress");
    expect(refused.details).toEqual([{ field: "domain_id", crawl_id: running }]);
    expect((await svc.call("GET", `/domains/${domainId}`)).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${first}`)).status).toBe(200);
    expect(rowsOf(first)).toBeGreaterThan(0);

    expect((await svc.call("POST", `/crawls/${running}/cancel`)).status).toBe(200);
    release();
    const removed = await svc.call("DELETE", `/domains/${domainId}`);
    expect(removed.status).toBe(204);
    for (const crawl of [first, running]) {
      expectErrorEnvelope(await svc.call("GET", `/crawls/${crawl}`), 404, "not_found");
      expect(rowsOf(crawl)).toBe(0);
    }
  }, 30_000);
});

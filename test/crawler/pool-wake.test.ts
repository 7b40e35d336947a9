import { afterEach, expect, test } from "bun:test";
import { withDefaultOptions } from "../../src/core/stored-options.ts";
import { verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A crawl started while the pool is looking for work must not be missed. On a single node nothing polls the store
 * for pending crawls: a wake that arrived as a fill was ending (after its last look, before it let go) was lost,
 * and the crawl stayed pending for good, holding its domain against every later start (found by
 * bench/profile-reaudit.ts, which starts its first crawl right after the pool).
 */

let site: LoopbackSite | undefined;
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  await site?.stop();
  svc = undefined;
  site = undefined;
});

test("a crawl started right after the pool starts is taken up", async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/a'>a</a>" }, "/a": { body: "<p>a</p>" } });
  svc = await startTestService({}, { startCrawls: false });
  const domainId = await verifiedDomain(svc, site.url("/"));
  // The pool's first fill is under way (it reads the store) while the crawl is queued and wakes it.
  svc.runtime.crawlPool.start();
  const crawl = await svc.runtime.crawls.start(domainId, withDefaultOptions({}));
  const done = await waitForCrawl(svc, crawl.id, 10_000);
  expect(done.status).toBe("completed");
  expect(done.pages_crawled).toBe(2);
}, 30_000);

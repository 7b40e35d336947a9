import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";

/**
 * The crawler's SSRF guard end to end, with only 127.0.0.1/32 allowed: a link to 127.0.0.2 (where a server
 * really listens), a name that resolves to 10.0.0.1, and an internal redirect to 127.0.0.2 are all recorded as
 * broken with a clear error, and the refused server receives nothing.
 */

let site: LoopbackSite;
let forbidden: LoopbackSite;
let svc: TestService;
let links: any[];
let crawl: any;

beforeAll(async () => {
  forbidden = await startLoopbackSite({ "/secret": { body: "<a href='/x'>x</a>" } }, { hostname: "127.0.0.2" });
  site = await startLoopbackSite({
    "/": {
      body: `<a href="${forbidden.url("/secret")}">other loopback address</a>
        <a href="http://private.test:${forbidden.port}/secret">name resolving to 10.0.0.1</a>
        <a href="/to-private">internal redirect to a refused address</a>
        <a href="/fine">Fine</a>`,
    },
    "/fine": { body: "ok" },
    "/to-private": () => new Response(null, { status: 302, headers: { location: forbidden.url("/secret") } }),
  });
  svc = await startTestService(
    { crawler: { allow_private_networks: false, allowed_cidrs: ["127.0.0.1/32"] } },
    { resolve: tableResolver({ "private.test": "10.0.0.1" }) },
  );
  const domainId = await verifiedDomain(svc, site.url("/"));
  const id = await startCrawl(svc, domainId, { follow_external: true });
  crawl = await waitForCrawl(svc, id);
  links = await readAll(svc, `/crawls/${id}/links`);
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
  await forbidden?.stop();
});

const byUrl = (url: string) => links.find((link) => link.url === url);

test("the crawl completes and counts the refused targets as broken", () => {
  expect(crawl).toMatchObject({ status: "completed", total_links: 4, broken_links: 3, pages_crawled: 2 });
});

test("a link to another loopback address is refused, never fetched", () => {
  expect(byUrl(forbidden.url("/secret"))).toMatchObject({ status_code: 0, is_broken: true });
  expect(byUrl(forbidden.url("/secret")).error).toContain("127.0.0.2 is a private or reserved address");
});

test("a name resolving to a private address is refused on the resolved address", () => {
  const link = byUrl(`http://private.test:${forbidden.port}/secret`);
  expect(link).toMatchObject({ status_code: 0, is_broken: true });
  expect(link.error).toContain("private.test resolves to 10.0.0.1");
});

test("a redirect hop to a refused address is refused before connecting", () => {
  const link = byUrl(site.url("/to-private"));
  expect(link).toMatchObject({ status_code: 0, is_broken: true });
  expect(link.error).toContain("127.0.0.2");
});

test("the refused server received no request at all", () => {
  expect(forbidden.requests).toEqual([]);
  expect(byUrl(site.url("/fine"))).toMatchObject({ status_code: 200, is_broken: false, error: null });
});

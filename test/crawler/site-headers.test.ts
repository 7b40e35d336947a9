import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * `crawler.headers` / `check --header` (a staging site's Authorization) go to the crawled site's origin only:
 * its pages, its robots.txt and its redirect hops carry them; another host's robots.txt, the HEADs and GETs of
 * external targets and redirect hops that leave the site carry none of them.
 */

let site: LoopbackSite;
let other: LoopbackSite;
let svc: TestService;

const SECRET_HEADERS = { Authorization: "Basic c3RhZ2luZzpzM2NyZXQ=", "X-Staging-Token": "s3cret" };

beforeAll(async () => {
  other = await startLoopbackSite({
    "/robots.txt": { body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } },
    "/page": { body: "elsewhere" },
  });
  site = await startLoopbackSite({
    "/robots.txt": { body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } },
    "/": { body: `<a href="/a">a</a> <a href="${other.url("/page")}">other</a> <a href="/away">away</a> <img src="${other.url("/pic.png")}" alt="p">` },
    "/a": { body: "<a href='/'>home</a>" },
    "/away": { status: 302, headers: { location: other.url("/page") } },
  });
  svc = await startTestService({ crawler: { headers: SECRET_HEADERS } });
});
afterAll(async () => {
  await svc?.stop();
  await Promise.all([site?.stop(), other?.stop()]);
});

function carried(headers: Record<string, string>[]) {
  return headers.map((h) => ({ authorization: h.authorization ?? null, token: h["x-staging-token"] ?? null }));
}

test("the service sends crawler.headers to the crawled site and to no other host", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { follow_external: true, scan_images: true });
  const detail = await waitForCrawl(svc, id);
  expect(detail.status).toBe("completed");

  expect(site.requests).toEqual(expect.arrayContaining(["GET /robots.txt", "GET /", "GET /a", "GET /away"]));
  expect(new Set(carried(site.requestHeaders).map((h) => JSON.stringify(h)))).toEqual(
    new Set([JSON.stringify({ authorization: SECRET_HEADERS.Authorization, token: SECRET_HEADERS["X-Staging-Token"] })]),
  );
  expect(other.requests).toEqual(expect.arrayContaining(["GET /robots.txt", "HEAD /page", "GET /page", "HEAD /pic.png"]));
  expect(carried(other.requestHeaders).filter((h) => h.authorization !== null || h.token !== null)).toEqual([]);
});

test("check --header follows the same rule", async () => {
  const siteBefore = site.requests.length;
  const otherBefore = other.requests.length;
  const run = await runCli(
    ["check", site.url("/"), "--allow-private", "--all", "--header", `Authorization: ${SECRET_HEADERS.Authorization}`, "--format", "json"],
    { timeoutMs: 30_000 },
  );
  expect(run.exitCode).toBe(1); // /pic.png is missing on the other host
  const ours = carried(site.requestHeaders.slice(siteBefore));
  expect(ours.length).toBeGreaterThan(2);
  expect(ours.every((h) => h.authorization === SECRET_HEADERS.Authorization)).toBe(true);
  const theirs = carried(other.requestHeaders.slice(otherBefore));
  expect(theirs.length).toBeGreaterThan(2);
  expect(theirs.filter((h) => h.authorization !== null)).toEqual([]);
});

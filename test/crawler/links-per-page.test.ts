import { afterAll, beforeAll, expect, test } from "bun:test";
import { createExtractor } from "../../src/crawler/extract.ts";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * One page cannot create unbounded work: at most crawler.max_links_per_page links are taken from it (in
 * document order), and the rest are counted and reported as a cut page, never dropped silently.
 */

const LINKS = 120;
const LIMIT = 50;

let site: LoopbackSite;
let svc: TestService;

beforeAll(async () => {
  const many = Array.from({ length: LINKS }, (_, i) => `<a href="/p/${i}">p${i}</a>`).join(" ");
  site = await startLoopbackSite(
    { "/": { body: `<a href="/many">many</a> <a href="/few">few</a>` }, "/many": { body: many }, "/few": { body: "<a href='/'>home</a>" } },
    {
      fallback: () => new Response("ok", { headers: { "content-type": "text/html" } }),
    },
  );
  svc = await startTestService({ crawler: { max_links_per_page: LIMIT } });
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

test("the extractor keeps the first maxLinks links and counts the rest", () => {
  const extractor = createExtractor("https://site.example/", { maxLinks: 3 });
  extractor.write(`<a href="/1">1</a><img src="/2.png" srcset="/3.png 2x, /4.png 3x"><a href="/5">5</a>`);
  expect(extractor.end().map((link) => link.url)).toEqual(["https://site.example/1", "https://site.example/2.png", "https://site.example/3.png"]);
  expect(extractor.dropped).toBe(2);
});

test("a page over the limit gives its first links, a warning on the links to it, and a cut in the crawl", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const detail = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  const fromMany = links.filter((link) => link.source_url === site.url("/many")).map((link) => link.url);
  expect(fromMany).toEqual(Array.from({ length: LIMIT }, (_, i) => site.url(`/p/${i}`)));
  expect(links.find((link) => link.url === site.url("/many"))!.warning).toBe(
    `page has more than ${LIMIT} links (crawler.max_links_per_page): the ${LINKS - LIMIT} after them were not checked`,
  );
  expect(links.find((link) => link.url === site.url("/few"))!.warning).toBeNull();
  expect(detail).toMatchObject({ status: "completed", pages_cut: 1, total_links: 2 + 1 + LIMIT });
  expect(detail.warnings).toEqual([expect.stringContaining("1 page was cut short")]);
  expect(site.requests.filter((request) => request.startsWith("GET /p/")).length).toBe(LIMIT);
});

test("check --max-links-per-page applies the same limit", async () => {
  const run = await runCli(["check", site.url("/"), "--allow-private", "--max-links-per-page", String(LIMIT), "--format", "json"], { timeoutMs: 30_000 });
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report.summary).toMatchObject({ pages_cut: 1, total_links: 2 + 1 + LIMIT });
  expect(run.stderr).toContain("1 page was cut short");
});

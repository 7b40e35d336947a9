import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A stylesheet is bounded like a page: its body by crawler.max_body_bytes, its links by
 * crawler.max_links_per_page (the cut is reported on the links to it and in pages_cut), and the number of
 * stylesheets read by crawler.max_pages, so CSS importing generated CSS is a trap with an end.
 */

const LIMIT = 50;
const HUGE_BYTES = 12 * 1024 * 1024;
const MANY = 120;

let site: LoopbackSite;
let svc: TestService;
let smallSvc: TestService;

function hugeCss(): Uint8Array<ArrayBuffer> {
  const rule = (i: number) => `.r${i} { background: url(/img/h${i}.png) }\n`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < HUGE_BYTES; i++) {
    const line = rule(i);
    parts.push(line);
    size += line.length;
  }
  return new TextEncoder().encode(parts.join(""));
}

beforeAll(async () => {
  const huge = hugeCss();
  const many = Array.from({ length: MANY }, (_, i) => `.m${i}{background:url(/img/m${i}.png)}`).join("\n");
  site = await startLoopbackSite(
    {
      "/": { body: `<link rel="stylesheet" href="/huge.css"><link rel="stylesheet" href="/many.css"><a href="/next">next</a>` },
      "/next": { body: `<link rel="stylesheet" href="/gen/1.css">` },
      "/huge.css": () => new Response(huge, { headers: { "content-type": "text/css" } }),
      "/many.css": { body: many, headers: { "content-type": "text/css" } },
    },
    {
      fallback: (request) => {
        const path = new URL(request.url).pathname;
        // An endless chain of generated sheets, each importing the next.
        const generated = /^\/gen\/(\d+)\.css$/.exec(path);
        if (generated) return new Response(`@import "${Number(generated[1]) + 1}.css";`, { headers: { "content-type": "text/css" } });
        return new Response("x", { headers: { "content-type": "image/png" } });
      },
    },
  );
  svc = await startTestService({ crawler: { max_links_per_page: LIMIT } });
  smallSvc = await startTestService({ crawler: { max_pages: 5, max_body_bytes: 4096 } });
});
afterAll(async () => {
  await svc?.stop();
  await smallSvc?.stop();
  await site?.stop();
});

test("a 12 MB stylesheet is cut at max_body_bytes and gives at most max_links_per_page links; a sheet of 120 url()s gives 50", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { scan_stylesheets: true });
  const detail = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  const fromHuge = links.filter((link) => link.source_url === site.url("/huge.css"));
  expect(fromHuge.map((link) => link.url)).toEqual(Array.from({ length: LIMIT }, (_, i) => site.url(`/img/h${i}.png`)));
  expect(links.find((link) => link.url === site.url("/huge.css"))!.warning).toBe(
    "stylesheet cut at 10485760 bytes (crawler.max_body_bytes): links after the cut were not seen",
  );
  expect(links.filter((link) => link.source_url === site.url("/many.css"))).toHaveLength(LIMIT);
  expect(links.find((link) => link.url === site.url("/many.css"))!.warning).toBe(
    `stylesheet has more than ${LIMIT} links (crawler.max_links_per_page): the ${MANY - LIMIT} after them were not checked`,
  );
  expect(detail).toMatchObject({ status: "completed", pages_cut: 2 });
  expect(site.requests.filter((r) => r.startsWith("HEAD /img/h")).length).toBe(LIMIT);
}, 30_000); // a 12 MB body crosses loopback and is read in a worker thread on a loaded 2-core machine

test("stylesheets read are bounded by max_pages: an endless @import chain ends, truncated", async () => {
  const id = await startCrawl(smallSvc, await verifiedDomain(smallSvc, site.url("/")), { scan_stylesheets: true });
  const detail = await waitForCrawl(smallSvc, id);
  const links = await readAll(smallSvc, `/crawls/${id}/links`);
  const readSheets = new Set(links.map((link) => link.source_url).filter((url: string) => url.endsWith(".css")));
  expect(readSheets.size).toBe(5);
  expect(detail).toMatchObject({ status: "completed", pages_crawled: 2, truncated: true });
  // The huge sheet is cut at 4096 bytes: a URL cut in half at the end is not taken for a link.
  const fromHuge = links.filter((link) => link.source_url === site.url("/huge.css")).map((link) => link.url);
  expect(fromHuge.every((url: string) => /\/img\/h\d+\.png$/.test(url))).toBe(true);
  expect(fromHuge.length).toBeGreaterThan(50);
}, 20_000); // several crawls' worth of requests on a loaded machine

test("check --stylesheets --max-links-per-page applies the same bounds", async () => {
  const run = await runCli(
    ["check", site.url("/"), "--allow-private", "--stylesheets", "--max-pages", "5", "--max-links-per-page", String(LIMIT), "--format", "json"],
    {
      timeoutMs: 30_000,
    },
  );
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report.summary).toMatchObject({ pages_cut: 2, truncated: true, pages_crawled: 2 });
  expect(report.links.filter((link: any) => link.source_url === site.url("/huge.css"))).toHaveLength(LIMIT);
}, 30_000); // the CLI starts a process and reads the 12 MB sheet

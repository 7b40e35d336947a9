import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * With scan_stylesheets, a crawl reads the site's own stylesheets and the CSS inside its pages: @import and
 * url() targets become `stylesheet` links whose source is the stylesheet (resolved against its final URL) or
 * the page. Imported sheets are read in turn, each once, cycles included; external sheets are checked, not
 * read; a stylesheet is not a page. Over real sockets, through the API and through `linkpatrol check`.
 */

let site: LoopbackSite;
let other: LoopbackSite;
let svc: TestService;
let domainId: string;

const css = (body: string | Uint8Array<ArrayBuffer>, type = "text/css") => ({ body, headers: { "content-type": type } });
const latin1 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(text, (c) => c.charCodeAt(0));

const MAIN_CSS = String.raw`@charset "utf-8";
@import "imported.css";
@import url(media.css) screen and (min-width: 100px);
@import url("layered.css") layer(base) supports(display: grid);
@namespace svg url(http://www.w3.org/2000/svg);
/* .hidden { background: url(../img/commented.png) } */
.a { background: url(../img/unquoted.png) }
.b { background: url( "../img/quoted.png" ) /* url(../img/comment-after.png) */ }
.c { background: url('../img/single.png') }
.d { background: url(../img/esc\29 aped.png) }
.e::after { content: "url(../img/in-string.png)" }
.f { background: url(data:image/png;base64,iVBORw0KGgo=) }
.g { background-image: image-set("../img/set-1x.png" 1x, url(../img/set-2x.png) 2x) }
.h { filter: url(#svgfilter) }
@font-face { font-family: X; src: url(../fonts/x.woff2) format("woff2"), url("../fonts/missing.woff") format("woff"), local("X Sans") }
.k { background: url(../img/never closed.png; } .l { background: url(../img/swallowed.png) } .m { background: url(../img/after-bad.png) }
`;

beforeAll(async () => {
  other = await startLoopbackSite(
    { "/ext.css": css(".x { background: url(/ext-img.png) }") },
    { fallback: () => new Response("x", { headers: { "content-type": "image/png" } }) },
  );
  site = await startLoopbackSite(
    {
      "/": {
        body: `<html><head>
          <link rel="stylesheet" href="/css/main.css">
          <link rel="stylesheet" href="${other.url("/ext.css")}">
          <link rel="stylesheet" href="/css/moved.css">
          <link rel="stylesheet" href="/css/plain.txt">
          <link rel="stylesheet" href="/css/latin1.css">
          <style>@import "/css/from-style.css"; body { background: url(img/style-bg.png) }</style>
          <style type="text/x-scss">.a { background: url(/img/scss.png) }</style>
          </head><body><div style="background-image: url('/img/attr.png')">x</div>
          <template><div style="background: url(/img/template.png)"></div></template>
          <a href="/page2">two</a></body></html>`,
      },
      "/page2": {
        body: `<link rel="stylesheet" href="/css/main.css"><link rel="stylesheet" href="/css/no-head.css">
          <p style="background:url(/img/attr2.png)">two</p><a href="/css/anchored.css">the theme's CSS</a>`,
      },
      "/css/no-head.css": (request) =>
        request.method === "HEAD"
          ? new Response(null, { status: 405 })
          : new Response(`.s { background: url(/img/no-head.png) }`, { headers: { "content-type": "text/css" } }),
      "/css/anchored.css": css(`.t { background: url(/img/anchored.png) }`),
      "/css/main.css": css(MAIN_CSS),
      "/css/imported.css": css(`@import "main.css"; @import "chain.css"; .i { background: url(/img/from-import.png) }`),
      "/css/chain.css": css(`@import url(imported.css); .j { background: url(/img/deep.png) }`),
      "/css/media.css": css(`.m { background: url(/img/media.png) }`),
      "/css/layered.css": css(`.n { background: url(/img/layered.png) }`),
      "/css/from-style.css": css(`.o { background: url(/img/from-style-sheet.png) }`),
      "/css/moved.css": { status: 301, headers: { location: "/css/real/sheet.css" } },
      "/css/real/sheet.css": css(`.p { background: url(relative.png) }`),
      "/css/plain.txt": css(`.q { background: url(/img/not-read.png) }`, "text/plain"),
      "/css/latin1.css": css(latin1(`@charset "iso-8859-1";\n.r { background: url(/img/caf\xe9.png) }`)),
    },
    {
      fallback: (request) => {
        const path = new URL(request.url).pathname;
        if (path.startsWith("/img/") || path === "/fonts/x.woff2" || path.startsWith("/css/real/")) {
          return new Response("x", { headers: { "content-type": "image/png" } });
        }
        return new Response("not found", { status: 404 });
      },
    },
  );
  svc = await startTestService();
  domainId = await verifiedDomain(svc, site.url("/"));
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
  await other?.stop();
});

const from = (links: any[], source: string): string[] =>
  links
    .filter((link) => link.source_url === source)
    .map((link) => link.url)
    .sort();

const img = (path: string): string => site.url(path);

describe("through the API", () => {
  let detail: any;
  let links: any[];
  let requestsBefore: number;

  beforeAll(async () => {
    requestsBefore = site.requests.length;
    const id = await startCrawl(svc, domainId, { scan_stylesheets: true });
    detail = await waitForCrawl(svc, id);
    links = await readAll(svc, `/crawls/${id}/links`);
  });

  test("every url() and @import of a stylesheet is a link whose source is the stylesheet", () => {
    expect(from(links, site.url("/css/main.css"))).toEqual(
      [
        "/css/imported.css",
        "/css/media.css",
        "/css/layered.css",
        "/img/unquoted.png",
        "/img/quoted.png",
        "/img/single.png",
        "/img/esc)aped.png",
        "/img/set-1x.png",
        "/img/set-2x.png",
        "/fonts/x.woff2",
        "/fonts/missing.woff",
        "/img/after-bad.png",
      ]
        .map(img)
        .sort(),
    );
    for (const link of links.filter((l) => l.source_url === site.url("/css/main.css"))) {
      expect(link).toMatchObject({ kind: "stylesheet", link_text: "" });
    }
  });

  test("imported sheets are read in turn, each once, a cycle included", () => {
    expect(from(links, site.url("/css/imported.css"))).toEqual(["/css/main.css", "/css/chain.css", "/img/from-import.png"].map(img).sort());
    expect(from(links, site.url("/css/chain.css"))).toEqual(["/css/imported.css", "/img/deep.png"].map(img).sort());
    expect(from(links, site.url("/css/media.css"))).toEqual([img("/img/media.png")]);
    expect(from(links, site.url("/css/layered.css"))).toEqual([img("/img/layered.png")]);
    const gets = site.requests.slice(requestsBefore).filter((r) => r.startsWith("GET /css/"));
    expect(gets.filter((r) => r === "GET /css/main.css")).toHaveLength(1);
    expect(gets.filter((r) => r === "GET /css/imported.css")).toHaveLength(1);
    expect(gets.filter((r) => r === "GET /css/chain.css")).toHaveLength(1);
  });

  test("a font that 404s, found only through CSS, is broken with the stylesheet as its source", async () => {
    const missing = links.filter((link) => link.url === img("/fonts/missing.woff"));
    expect(missing).toEqual([expect.objectContaining({ source_url: site.url("/css/main.css"), status_code: 404, is_broken: true, kind: "stylesheet" })]);
    const broken = await readAll(svc, `/crawls/${detail.id}/broken`);
    expect(broken.map((link) => [link.url, link.source_url])).toEqual([[img("/fonts/missing.woff"), site.url("/css/main.css")]]);
  });

  test("<style> blocks and style attributes give links from the page; other style types and templates do not", () => {
    expect(from(links, site.url("/"))).toEqual(
      ["/css/main.css", "/css/moved.css", "/css/plain.txt", "/css/latin1.css", "/css/from-style.css", "/img/style-bg.png", "/img/attr.png", "/page2"]
        .map(img)
        .sort(),
    );
    expect(from(links, site.url("/page2"))).toEqual(["/css/main.css", "/css/no-head.css", "/img/attr2.png", "/css/anchored.css"].map(img).sort());
    expect(from(links, site.url("/css/from-style.css"))).toEqual([img("/img/from-style-sheet.png")]);
  });

  test("a sheet that refuses HEAD is read from the GET that replaces it; a sheet an <a> points at is read too", () => {
    expect(from(links, site.url("/css/no-head.css"))).toEqual([img("/img/no-head.png")]);
    expect(site.requests.slice(requestsBefore).filter((r) => r.endsWith(" /css/no-head.css"))).toEqual(["HEAD /css/no-head.css", "GET /css/no-head.css"]);
    expect(from(links, site.url("/css/anchored.css"))).toEqual([img("/img/anchored.png")]);
    expect(links.find((link) => link.url === site.url("/css/anchored.css"))).toMatchObject({ kind: "anchor", status_code: 200 });
  });

  test("a redirected stylesheet is read at its final URL, and its URLs resolve against it", () => {
    expect(from(links, site.url("/css/real/sheet.css"))).toEqual([img("/css/real/relative.png")]);
    expect(links.find((link) => link.url === site.url("/css/moved.css"))).toMatchObject({ status_code: 200, final_url: site.url("/css/real/sheet.css") });
  });

  test("a sheet's @charset decodes it; one served as text/plain is checked, not read", () => {
    expect(from(links, site.url("/css/latin1.css"))).toEqual([img("/img/caf%C3%A9.png")]);
    expect(from(links, site.url("/css/plain.txt"))).toEqual([]);
    expect(site.requests).not.toContain("GET /img/not-read.png");
  });

  test("nothing from comments, strings, data: URLs, fragments, @namespace, a bad url() or what it swallowed", () => {
    const targets = links.map((link) => link.url);
    for (const path of ["/img/commented.png", "/img/comment-after.png", "/img/in-string.png", "/img/swallowed.png", "/img/scss.png", "/img/template.png"]) {
      expect(targets).not.toContain(img(path));
    }
    expect(targets.some((url) => url.startsWith("data:") || url.includes("w3.org") || url.includes("svgfilter"))).toBe(false);
  });

  test("a stylesheet is not a page: pages_crawled counts the two HTML pages, and counts match the links", () => {
    expect(detail).toMatchObject({ status: "completed", pages_crawled: 2, total_links: links.length, broken_links: 1, pages_cut: 0, truncated: false });
  });

  test("an external stylesheet is neither recorded nor fetched without follow_external", () => {
    expect(links.some((link) => link.url.startsWith(other.origin))).toBe(false);
    expect(other.requests).toEqual([]);
  });
});

test("with follow_external, an external stylesheet is checked, not read", async () => {
  const id = await startCrawl(svc, domainId, { scan_stylesheets: true, follow_external: true });
  await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  expect(links.find((link) => link.url === other.url("/ext.css"))).toMatchObject({ source_url: site.url("/"), status_code: 200, kind: "stylesheet" });
  expect(from(links, other.url("/ext.css"))).toEqual([]);
  expect(other.requests.filter((r) => r !== "GET /robots.txt")).toEqual(["HEAD /ext.css"]);
});

test("with scan_stylesheets off, no stylesheet is fetched and no CSS is read", async () => {
  const before = site.requests.length;
  const id = await startCrawl(svc, domainId, { scan_images: true });
  const detail = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  // The anchor to a stylesheet is an anchor: checked (its answer is not a page), never read.
  expect(links.map((link) => [link.url, link.source_url]).sort()).toEqual([
    [img("/css/anchored.css"), site.url("/page2")],
    [img("/page2"), site.url("/")],
  ]);
  expect(detail).toMatchObject({ pages_crawled: 2, total_links: 2 });
  const asked = site.requests.slice(before).filter((r) => r.includes("/css/") || r.includes("/img/") || r.includes("/fonts/"));
  expect(asked).toEqual(["GET /css/anchored.css"]);
});

test("linkpatrol check --stylesheets reports the same links, the broken font with its stylesheet", async () => {
  const run = await runCli(["check", site.url("/"), "--allow-private", "--stylesheets", "--format", "json"], { timeoutMs: 30_000 });
  expect(run.exitCode).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report.summary).toMatchObject({ pages_crawled: 2, broken_links: 1 });
  const links: any[] = report.links;
  expect(links.filter((link) => link.is_broken)).toEqual([
    expect.objectContaining({ url: img("/fonts/missing.woff"), source_url: site.url("/css/main.css"), status_code: 404, kind: "stylesheet" }),
  ]);
  expect(from(links, site.url("/css/chain.css"))).toEqual(["/css/imported.css", "/img/deep.png"].map(img).sort());
  expect(from(links, site.url("/"))).toContain(img("/img/attr.png"));
});

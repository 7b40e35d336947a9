import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * check_fragments over real sockets: a site whose pages link to sections that exist, that do not, that differ
 * only in case, that are percent-encoded, `#` and `#top`, sections of a redirected page, of a page past
 * max_depth, of a huge page cut at max_body_bytes, and of a page first checked as an image (fetched again for
 * its ids). Each URL with its fragment is a Link of its own. The same site without the option has no fragment
 * verdicts at all, and one Link per target.
 */

const MAX_BODY = 64 * 1024;
const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html; charset=utf-8" } });

function siteRoutes(): Record<string, (request: Request) => Response | Promise<Response>> {
  return {
    "/": () =>
      html(`<h1 id="self">Root</h1>
        <a href="#self">here</a> <a href="#nowhere">nowhere on root</a>
        <a href="/a.html#intro">intro</a> <a href="/a.html#missing">missing</a> <a href="/a.html#Intro">case differs</a>
        <a href="/a.html#">empty</a> <a href="/a.html#top">top</a> <a href="/a.html#TOP">TOP</a>
        <a href="/a.html#caf%C3%A9">encoded</a> <a href="/a.html#café">raw non-ASCII</a> <a href="/a.html#50%25">percent id</a>
        <a href="/a.html#named">a name</a> <a href="/a.html#a%20b">space</a>
        <a href="/old#sec">redirected</a> <a href="/old#gone">redirected, missing</a>
        <a href="/huge.html#early">early</a> <a href="/huge.html#late">late</a>
        <a href="/d1.html">deeper</a>
        <img src="/as-image.html" alt="i"> <img src="/away" alt="a"> <a href="/slow.html">slow</a>
        <a href="/404.html#x">dead page</a>`),
    "/a.html": () =>
      html(`<h2 id="intro">Intro</h2><p id="café">c</p><p id="50%">p</p><a name="named">n</a><p id="a b">s</p>
        <div id="top-not-special"></div>`),
    "/old": () => new Response(null, { status: 301, headers: { location: "/new" } }),
    "/new": () => html(`<section id="sec">S</section>`),
    // The ids past the cut are never seen: a fragment naming one cannot be proven missing.
    "/huge.html": () => html(`<p id="early">e</p>${"<p>filler</p>".repeat(MAX_BODY / 8)}<p id="late">l</p>`),
    "/d1.html": () => html(`<a href="/d2.html#deep">deep</a> <a href="/d2.html#not-deep">not deep</a>`),
    "/d2.html": () => html(`<p id="deep">past max_depth: checked, its links not recorded</p><a href="/d3.html">d3</a>`),
    "/as-image.html": () => html(`<p id="there">t</p>`),
    // Held until the image checks of /as-image.html and /away are recorded (bounded): done before this page's links are.
    "/slow.html": async () => {
      const state = svc.runtime.store.sqlite!.query(
        "SELECT state FROM crawl_targets WHERE url = ? AND crawl_id IN (SELECT id FROM crawls WHERE status = 'running')",
      );
      const done = (path: string) => (state.get(site.url(path)) as { state: string } | null)?.state === "done";
      for (let i = 0; i < 500 && !(done("/as-image.html") && done("/away")); i++) await Bun.sleep(20);
      return html(`<a href="/as-image.html#there">there</a> <a href="/as-image.html#not-there">not there</a> <a href="/away#y">away</a>`);
    },
  };
}

/** "source path → target path#fragment" of a link. */
const pair = (link: { source_url: string; url: string }) => `${new URL(link.source_url).pathname} → ${new URL(link.url).pathname}${new URL(link.url).hash}`;

let site: LoopbackSite;
let elsewhere: LoopbackSite;
let svc: TestService;
let domainId: string;

beforeAll(async () => {
  elsewhere = await startLoopbackSite({ "/landing": () => html(`<p id="x">another site</p>`) });
  site = await startLoopbackSite({ ...siteRoutes(), "/away": () => new Response(null, { status: 302, headers: { location: elsewhere.url("/landing") } }) });
  svc = await startTestService({
    // header_timeout well above the held page's wait, so the hold and not the crawler decides when it answers.
    crawler: { max_depth: 1, max_body_bytes: MAX_BODY, header_timeout: "30s" },
    webhooks: { allow_http: true, allow_private_targets: true },
  });
  domainId = await verifiedDomain(svc, site.url("/"));
  // Only its outbox rows are read: the payload a receiver would get.
  const hook = await svc.call("POST", "/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["broken_links.found"] } });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${hook.text}`);
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
  await elsewhere?.stop();
});

/** The crawl, its links as "source → url" keyed rows (paths, with the fragment) and its broken list. */
async function crawlWith(options: Record<string, boolean>) {
  const id = await startCrawl(svc, domainId, options);
  const crawl = await waitForCrawl(svc, id, 20_000);
  const links = await readAll(svc, `/crawls/${id}/links`);
  const broken = await readAll(svc, `/crawls/${id}/broken`);
  const byPair = new Map(links.map((link) => [pair(link), link]));
  return { id, crawl, links, broken, byPair };
}

describe("with check_fragments", () => {
  let run: Awaited<ReturnType<typeof crawlWith>>;
  beforeAll(async () => {
    run = await crawlWith({ check_fragments: true, scan_images: true });
  }, 25_000); // a crawl with a held page and a fragment step at its end

  test("the crawl completes and counts the fragment verdicts among its broken links", () => {
    expect(run.crawl.status).toBe("completed");
    expect(run.crawl.options.check_fragments).toBe(true);
    expect(run.crawl.broken_links).toBe(run.links.filter((link) => link.is_broken).length);
    expect(run.crawl.broken_links).toBe(run.broken.length);
    expect(run.crawl.total_links).toBe(run.links.length);
  });

  test("one Link per (source, URL with its fragment), each with its own text and verdict", () => {
    const toA = run.links.filter((link) => new URL(link.url).pathname === "/a.html" && new URL(link.source_url).pathname === "/");
    // `#café` is `#caf%C3%A9` once parsed: the same URL, so the same Link (its first text); `#` is no fragment.
    expect(toA.map((link) => [new URL(link.url).hash, link.link_text, link.is_broken, link.error])).toEqual([
      ["#intro", "intro", false, null],
      ["#missing", "missing", true, "fragment #missing not found"],
      ["#Intro", "case differs", true, "fragment #Intro not found"], // ids are case-sensitive
      ["", "empty", false, null],
      ["#top", "top", false, null],
      ["#TOP", "TOP", false, null],
      ["#caf%C3%A9", "encoded", false, null],
      ["#50%25", "percent id", false, null],
      ["#named", "a name", false, null],
      ["#a%20b", "space", false, null],
    ]);
    expect(toA.every((link) => link.status_code === 200 && link.final_url === site.url("/a.html"))).toBe(true);
    expect(site.requests.filter((line) => line.endsWith(" /a.html"))).toEqual(["GET /a.html"]);
  });

  test("a link within the page: ids of the page itself", () => {
    expect(run.byPair.get("/ → /#self")).toMatchObject({ status_code: 200, is_broken: false, error: null, link_text: "here" });
    expect(run.byPair.get("/ → /#nowhere")).toMatchObject({ status_code: 200, is_broken: true, error: "fragment #nowhere not found" });
  });

  test("a redirected page is judged by the final page's ids", () => {
    expect(run.byPair.get("/ → /old#sec")).toMatchObject({ status_code: 200, final_url: site.url("/new"), is_broken: false, error: null });
    expect(run.byPair.get("/ → /old#gone")).toMatchObject({
      status_code: 200,
      final_url: site.url("/new"),
      is_broken: true,
      error: "fragment #gone not found",
    });
  });

  test("a page cut at max_body_bytes cannot prove a fragment missing: a warning, not broken, and the crawl says so", () => {
    // Both carry the page's own warning (cut) until a fragment's verdict says more.
    expect(run.byPair.get("/ → /huge.html#early")).toMatchObject({ status_code: 200, is_broken: false, error: null });
    expect(run.byPair.get("/ → /huge.html#early").warning).toStartWith("page cut at");
    const late = run.byPair.get("/ → /huge.html#late");
    expect(late).toMatchObject({ status_code: 200, is_broken: false, error: null });
    expect(late.warning).toStartWith("fragment #late not found in the part of the page that was read");
    expect(run.crawl.warnings).toContain(
      `1 link's #fragment could not be proven missing: the page was cut at crawler.max_body_bytes (${MAX_BODY} bytes) before its end; those links carry a warning and are not counted as broken`,
    );
  });

  test("a page past max_depth is still parsed for its ids", () => {
    expect(run.byPair.get("/d1.html → /d2.html#deep")).toMatchObject({ status_code: 200, is_broken: false, error: null });
    expect(run.byPair.get("/d1.html → /d2.html#not-deep")).toMatchObject({ status_code: 200, is_broken: true, error: "fragment #not-deep not found" });
    expect(run.crawl.truncated).toBe(true);
  });

  test("a page first checked as an image is fetched once more, with GET, for its ids", () => {
    expect(run.byPair.get("/slow.html → /as-image.html#there")).toMatchObject({ is_broken: false, error: null });
    expect(run.byPair.get("/slow.html → /as-image.html#not-there")).toMatchObject({ is_broken: true, error: "fragment #not-there not found" });
    expect(run.byPair.get("/ → /as-image.html")).toMatchObject({ kind: "image", is_broken: false, error: null });
    expect(site.requests.filter((line) => line.endsWith(" /as-image.html"))).toEqual(["HEAD /as-image.html", "GET /as-image.html"]);
  });

  test("a target whose redirects leave the site: its fragments are not judged, and nothing is fetched for them", () => {
    expect(run.byPair.get("/slow.html → /away#y")).toMatchObject({
      kind: "anchor",
      status_code: 200,
      final_url: elsewhere.url("/landing"),
      is_broken: false,
      error: null,
      warning: null,
    });
    expect(elsewhere.requests.filter((line) => line.startsWith("GET /landing"))).toEqual([]);
  });

  test("a broken page keeps its own verdict; its fragments are not judged", () => {
    expect(run.byPair.get("/ → /404.html#x")).toMatchObject({ status_code: 404, is_broken: true, error: null });
  });

  test("the store's broken-links stream (check's text report) is exactly the broken links of the whole stream, in order", async () => {
    const all = (await Array.fromAsync(svc.runtime.crawls.allLinks(run.id))).flat();
    const broken = (await Array.fromAsync(svc.runtime.crawls.allBrokenLinks(run.id))).flat();
    expect(broken).toEqual(all.filter((link) => link.is_broken));
    // Both kinds of broken link are in it: a broken target's and a missing fragment's.
    expect(broken.some((link) => link.status_code === 404)).toBe(true);
    expect(broken.some((link) => link.status_code === 200 && link.error?.startsWith("fragment"))).toBe(true);
  });

  test("/broken lists the fragment verdicts with the page's status", () => {
    const rows = run.broken.map((link) => `${pair(link)} ${link.status_code} ${link.error}`).sort();
    expect(rows).toEqual([
      "/ → /#nowhere 200 fragment #nowhere not found",
      "/ → /404.html#x 404 null",
      "/ → /a.html#Intro 200 fragment #Intro not found",
      "/ → /a.html#missing 200 fragment #missing not found",
      "/ → /old#gone 200 fragment #gone not found",
      "/d1.html → /d2.html#not-deep 200 fragment #not-deep not found",
      "/slow.html → /as-image.html#not-there 200 fragment #not-there not found",
    ]);
    for (const link of run.broken) expect(link).not.toHaveProperty("is_broken");
  });

  test("filters and counts agree: is_broken=false leaves them out, status_code=200 counts them", async () => {
    const working = await readAll(svc, `/crawls/${run.id}/links?is_broken=false`);
    expect(working.some((link) => link.error?.startsWith("fragment"))).toBe(false);
    expect(working.length).toBe(run.crawl.total_links - run.crawl.broken_links);
    const ok = await svc.call("GET", `/crawls/${run.id}/links?status_code=200&is_broken=true&limit=100`);
    expect(ok.json.data.map((link: any) => link.error).sort()).toEqual([
      "fragment #Intro not found",
      "fragment #gone not found",
      "fragment #missing not found",
      "fragment #not-deep not found",
      "fragment #not-there not found",
      "fragment #nowhere not found",
    ]);
    expect(ok.json.meta.total).toBe(6);
    const all200 = await svc.call("GET", `/crawls/${run.id}/links?status_code=200&limit=1`);
    expect(all200.json.meta.total).toBe(run.links.filter((link) => link.status_code === 200).length);
  });

  test("broken_links.found counts them and samples them with the page's status", () => {
    const row = svc.runtime.store
      .sqlite!.query("SELECT payload FROM webhook_deliveries WHERE event = 'broken_links.found' AND json_extract(payload, '$.data.crawl_id') = ?")
      .get(run.id) as { payload: string } | null;
    const data = JSON.parse(row!.payload).data;
    expect(data.broken_count).toBe(run.crawl.broken_links);
    expect(data.sample_links).toContainEqual({ url: site.url("/a.html#missing"), status_code: 200 });
    expect(data.sample_links).toContainEqual({ url: site.url("/a.html#Intro"), status_code: 200 });
    expect(data.sample_links).toContainEqual({ url: site.url("/old#gone"), status_code: 200 });
    expect(data.sample_links).not.toContainEqual({ url: site.url("/a.html"), status_code: 200 });
  });

  test("nothing is left waiting for a verdict, and the pages' ids go once judged", () => {
    const count = (sql: string) => (svc.runtime.store.sqlite!.query(sql).get(run.id) as { n: number }).n;
    expect(count("SELECT COUNT(*) AS n FROM link_fragments WHERE crawl_id = ?")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM crawl_page_ids WHERE crawl_id = ?")).toBe(0);
  });
});

describe("without check_fragments", () => {
  test("the same site has no fragment verdicts and no extra requests", async () => {
    const before = site.requests.length;
    const run = await crawlWith({ scan_images: true });
    expect(run.crawl.status).toBe("completed");
    expect(run.links.filter((link) => (link.error ?? "").startsWith("fragment") || (link.warning ?? "").startsWith("fragment"))).toEqual([]);
    expect(run.broken.map((link) => link.url)).toEqual([site.url("/404.html")]);
    // One Link per (source, target) without fragment, as ever: the fragments of /a.html make one Link.
    expect(run.links.filter((link) => link.url === site.url("/a.html") && link.source_url === site.url("/"))).toHaveLength(1);
    expect(run.links.every((link) => !link.url.includes("#"))).toBe(true);
    expect(site.requests.slice(before).filter((line) => line === "GET /as-image.html")).toEqual([]);
  }, 20_000); // a crawl with a held page
});

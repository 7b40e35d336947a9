/**
 * Self-checks of the crawl benchmark's synthetic site (bench/site): a 200-page site on loopback, its pages
 * as the project's extractor reads them, robots.txt, redirects, and the ground truth against an independent
 * breadth-first walk over HTTP (a deliberately naive crawler: GET pages, HEAD/GET other targets, redirects
 * followed by hand). No timing is asserted; every loop is bounded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";
import { type CrawlFlags, OPTION_SETS, SyntheticSite } from "../../bench/site/generate.ts";
import { type RunningSite, startSiteServer } from "../../bench/site/server.ts";

const PAGES = 200;
const SLOW_MS = 150;
let running: RunningSite;
let site: SyntheticSite;

beforeAll(async () => {
  running = await startSiteServer({ pages: PAGES, seed: 7, slowDelayMs: SLOW_MS });
  site = running.site;
});
afterAll(async () => {
  await running.stop();
});

/** Follows redirects by hand (at most 10); status 0 for a loop or too many hops. */
async function finalAnswer(url: string, method: "GET" | "HEAD"): Promise<{ status: number; url: string; response: Response | null }> {
  const seen = new Set<string>();
  let current = url;
  for (let hop = 0; hop <= 10; hop++) {
    if (seen.has(current)) return { status: 0, url: current, response: null };
    seen.add(current);
    const res = await fetch(current, { method, redirect: "manual" });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.arrayBuffer();
      current = new URL(location, current).href;
      continue;
    }
    return { status: res.status, url: current, response: res };
  }
  return { status: 0, url: current, response: null };
}

/** A naive crawl over HTTP with the project's extractor: what a correct crawler must count. */
async function walk(flags: CrawlFlags) {
  const root = running.rootUrl;
  const main = new URL(root).origin;
  const robots = await (await fetch(`${main}/robots.txt`)).text();
  const disallow = [...robots.matchAll(/^Disallow:\s*(\S+)/gm)].map((m) => m[1]!);
  const kindOn = { anchor: true, image: flags.scan_images, script: flags.scan_scripts, stylesheet: flags.scan_stylesheets };
  const status = new Map<string, number>();
  const queue = [root];
  const queued = new Set(queue);
  const broken = new Set<string>();
  const skipped = new Set<string>();
  let total = 0;
  let brokenLinks = 0;
  for (let head = 0; head < queue.length && head < 10_000; head++) {
    const page = queue[head]!;
    const res = await fetch(page);
    const links = extractLinks(await res.text(), page);
    const seenHere = new Set<string>();
    for (const link of links) {
      const target = new URL(link.url);
      if (!kindOn[link.kind]) continue;
      if (target.origin !== main && !flags.follow_external) continue;
      if (target.origin === main && disallow.some((prefix) => target.pathname.startsWith(prefix))) {
        skipped.add(link.url);
        continue;
      }
      if (seenHere.has(link.url)) continue;
      seenHere.add(link.url);
      total++;
      let code = status.get(link.url);
      if (code === undefined) {
        const isPage = link.kind === "anchor" && target.origin === main;
        const answer = await finalAnswer(link.url, isPage ? "GET" : "HEAD");
        code = answer.status;
        status.set(link.url, code);
        const html = answer.response?.headers.get("content-type")?.startsWith("text/html") ?? false;
        if (isPage && code === 200 && html && new URL(answer.url).origin === main && !queued.has(answer.url)) {
          queued.add(answer.url);
          queue.push(answer.url);
        }
        await answer.response?.arrayBuffer();
      }
      if (code === 0 || code >= 400) {
        brokenLinks++;
        broken.add(link.url);
      }
    }
  }
  return { pages_crawled: queue.length, total_links: total, broken_links: brokenLinks, skipped_links: skipped.size, broken_urls: [...broken].sort() };
}

describe("bench synthetic site", () => {
  test("is deterministic per seed", () => {
    const origins = { main: "http://127.0.0.1:1", external: "http://127.0.0.1:2" };
    const a = new SyntheticSite(origins, { pages: PAGES, seed: 7 });
    const b = new SyntheticSite(origins, { pages: PAGES, seed: 7 });
    const c = new SyntheticSite(origins, { pages: PAGES, seed: 8 });
    expect(a.pageHtml(42)).toBe(b.pageHtml(42));
    expect(a.pageHtml(42)).not.toBe(c.pageHtml(42));
    expect(a.groundTruth(OPTION_SETS.all)).toEqual(b.groundTruth(OPTION_SETS.all));
  });

  test("pages are 10-40 KiB of HTML with 40-80 links, exactly the declared ones", async () => {
    for (const i of [0, 1, 5, 17, 63, 97, 140, PAGES - 1]) {
      const url = site.pageUrl(i);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/html");
      expect(res.headers.get("content-encoding")).toBeNull();
      const html = await res.text();
      expect(html.length).toBeGreaterThanOrEqual(10 * 1024);
      expect(html.length).toBeLessThanOrEqual(40 * 1024);
      const found = extractLinks(html, url);
      expect(found.length).toBeGreaterThanOrEqual(40);
      expect(found.length).toBeLessThanOrEqual(80);
      const declared = site.pageLinks(i).map((link) => ({ url: new URL(link.href, url).href.replace(/#.*$/, ""), kind: link.kind, text: link.text }));
      expect(found.map(({ url: u, kind, text }) => ({ url: u, kind, text }))).toEqual(declared);
    }
  });

  test("robots.txt disallows /private/ and names the sitemap, which lists every page", async () => {
    const robots = await (await fetch(`${site.origins.main}/robots.txt`)).text();
    expect(robots).toContain("Disallow: /private/");
    expect(robots).toContain(`Sitemap: ${site.origins.main}/sitemap.xml`);
    const sitemap = await (await fetch(`${site.origins.main}/sitemap.xml`)).text();
    expect(sitemap.match(/<loc>/g)?.length).toBe(PAGES);
    expect((await fetch(`${site.origins.main}/private/page-0.html`)).status).toBe(200);
    expect(await (await fetch(`${site.origins.external}/robots.txt`)).text()).toContain("Allow: /");
  });

  test("redirect chains, the loop and error pages answer as declared", async () => {
    const first = await fetch(`${site.origins.main}/old/page-0.html`, { redirect: "manual" });
    expect(first.status).toBe(301);
    expect(first.headers.get("location")).toBe("/moved/page-0.html");
    const end = await finalAnswer(`${site.origins.main}/old/page-0.html`, "GET");
    expect(end.status).toBe(200);
    expect(end.url).toBe(site.pageUrl(site.chainTarget(0)));
    expect((await finalAnswer(`${site.origins.main}/old/removed.html`, "GET")).status).toBe(404);
    expect((await finalAnswer(`${site.origins.main}/loop/a.html`, "GET")).status).toBe(0);
    expect(site.outcome(`${site.origins.main}/loop/a.html`).error).toBe("redirect_loop");
    const partner = await finalAnswer(`${site.origins.main}/out/partner.html`, "HEAD");
    expect(partner).toMatchObject({ status: 200, url: `${site.origins.external}/ext/page-0.html` });
    const gone = await fetch(`${site.origins.main}${site.brokenPath(1)}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain("/trap/from-error-page.html");
  });

  test("a slow page answers 200 after the delay", async () => {
    const slow = site.slowPageIds[0]!;
    const began = performance.now();
    expect((await fetch(site.pageUrl(slow), { method: "HEAD" })).status).toBe(200);
    expect(performance.now() - began).toBeGreaterThanOrEqual(SLOW_MS - 20);
  });

  for (const name of ["default", "all"] as const) {
    test(`ground truth (${name} options) matches an independent walk over HTTP`, async () => {
      const truth = site.groundTruth(OPTION_SETS[name]);
      expect(truth.pages_crawled).toBe(PAGES);
      expect(truth.total_links).toBeGreaterThan(0);
      expect(truth.broken_urls.length).toBeGreaterThan(0);
      expect(truth.skipped_links).toBe(3);
      for (const url of truth.broken_urls) {
        const answer = await finalAnswer(url, "GET");
        expect(answer.status === 0 || answer.status >= 400).toBe(true);
        await answer.response?.arrayBuffer();
      }
      const walked = await walk(OPTION_SETS[name]);
      expect(walked).toEqual({
        pages_crawled: truth.pages_crawled,
        total_links: truth.total_links,
        broken_links: truth.broken_links,
        skipped_links: truth.skipped_links,
        broken_urls: truth.broken_urls,
      });
    });
  }

  test("the all-options ground truth adds assets and external targets to the default one", () => {
    const all = site.groundTruth(OPTION_SETS.all);
    const def = site.groundTruth(OPTION_SETS.default);
    expect(all.pages_crawled).toBe(def.pages_crawled);
    expect(all.total_links).toBeGreaterThan(def.total_links);
    expect(all.broken_urls).toEqual(expect.arrayContaining(def.broken_urls));
    expect(all.broken_urls.some((u) => u.includes("/img/"))).toBe(true);
    expect(all.broken_urls.some((u) => u.startsWith(site.origins.external))).toBe(true);
    expect(def.broken_urls.every((u) => u.startsWith(site.origins.main))).toBe(true);
  });
});

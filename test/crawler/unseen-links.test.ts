import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_URL_LENGTH } from "../../src/crawler/normalize.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * No link found on a page disappears without a trace: hrefs that do not parse and URLs over the length limit
 * are recorded as broken links with the reason (no request is made for them), and a page cut at
 * max_body_bytes carries a warning on the links to it and in the crawl's warnings, so its unseen links are
 * known to be unseen.
 */

const INVALID = ["http://exa mple.com/", "http://[::1", "https://127.0.0.1:99999/"];
const LONG = [2_100, 3_000, 100_000].map((n) => `/long/${"x".repeat(n)}`);

let svc: TestService;
let small: TestService;
let site: LoopbackSite;
let big: LoopbackSite;

beforeAll(async () => {
  const anchors = [...INVALID, ...LONG].map((href, i) => `<p><a href="${href}">bad ${i}</a></p>`).join("\n");
  site = await startLoopbackSite({
    "/": { body: `<a href="/ok">fine</a> <a href="/links">the bad ones</a> <img src="http://[::1/x.png" alt="bad image">` },
    "/ok": { body: "<a href='/'>home</a>" },
    "/links": { body: anchors },
  });
  const filler = (n: number) => `<p>${"lorem ipsum ".repeat(Math.ceil(n / 12)).slice(0, n)}</p>`;
  big = await startLoopbackSite({
    "/": { body: `<a href="/big">big</a> <a href="/small">small</a>` },
    "/small": { body: "<a href='/'>home</a>" },
    "/big": { body: `${filler(300)}<a href="/early">early</a>${filler(3_000)}<a href="/late">late</a>` },
    "/early": { body: "ok" },
    "/late": { body: "ok" },
  });
  svc = await startTestService();
  small = await startTestService({ crawler: { max_body_bytes: 1024 } });
});
afterAll(async () => {
  await Promise.all([svc?.stop(), small?.stop()]);
  await Promise.all([site?.stop(), big?.stop()]);
});

const domains = new Map<string, string>();

async function crawl(service: TestService, rootUrl: string, options: Record<string, boolean> = {}) {
  const key = `${service.origin} ${new URL(rootUrl).host}`;
  if (!domains.has(key)) domains.set(key, await verifiedDomain(service, rootUrl));
  const id = await startCrawl(service, domains.get(key)!, options);
  const detail = await waitForCrawl(service, id);
  return { id, detail, links: await readAll(service, `/crawls/${id}/links`) };
}

describe("hrefs that cannot be checked are recorded broken, with the reason", () => {
  test("invalid and too-long hrefs: one broken link each, never requested, counted and listed in /broken", async () => {
    const { id, detail, links } = await crawl(svc, site.url("/"));
    const bad = links.filter((link) => link.source_url === site.url("/links"));
    const expected = [
      ...INVALID.map((href) => ({ url: href, error: expect.stringMatching(/^invalid_url: /) })),
      ...LONG.map((href) => {
        const full = site.url(href);
        return { url: `${full.slice(0, MAX_URL_LENGTH)}…[${full.length} characters]`, error: expect.stringMatching(/^url_too_long: /) };
      }),
    ].map((fields, i) => ({ ...fields, status_code: 0, is_broken: true, kind: "anchor", link_text: `bad ${i}`, final_url: null, warning: null }));
    expect(bad).toEqual(expected.map((e) => expect.objectContaining(e)));

    // follow_external is off, yet an unparseable href that names another host is still reported: no request is made.
    expect(detail).toMatchObject({ status: "completed", total_links: 3 + bad.length, broken_links: bad.length });
    const broken = await readAll(svc, `/crawls/${id}/broken`);
    expect(broken.map((link) => link.url)).toEqual(bad.map((link) => link.url));
    expect(site.requests.filter((request) => request.includes("/long/"))).toEqual([]);
  });

  test("the kind options still apply: an invalid image src is recorded only with scan_images", async () => {
    const image = (links: any[]) => links.filter((link) => link.kind === "image");
    expect(image((await crawl(svc, site.url("/"))).links)).toEqual([]);
    const [link] = image((await crawl(svc, site.url("/"), { scan_images: true })).links);
    expect(link).toMatchObject({ url: "http://[::1/x.png", is_broken: true, status_code: 0, link_text: "bad image" });
  });
});

describe("a page cut at max_body_bytes is known to be incomplete", () => {
  test("links before the cut are checked, the page's links carry a warning, the crawl counts and explains it", async () => {
    const { detail, links } = await crawl(small, big.url("/"));
    const urls = links.map((link) => link.url);
    expect(urls).toContain(big.url("/early"));
    expect(urls).not.toContain(big.url("/late"));
    const toBig = links.find((link) => link.url === big.url("/big"));
    expect(toBig).toMatchObject({ status_code: 200, is_broken: false, warning: expect.stringContaining("page cut at 1024 bytes") });
    expect(links.find((link) => link.url === big.url("/small"))!.warning).toBeNull();
    expect(detail).toMatchObject({ status: "completed", pages_cut: 1, broken_links: 0 });
    expect(detail.warnings).toEqual([expect.stringContaining("1 page was cut short by crawler.max_body_bytes")]);
  });

  test("a cut start page is reported in the crawl's warnings", async () => {
    const root = await startLoopbackSite({ "/": { body: `<a href="/a">a</a>${"<p>filler</p>".repeat(200)}<a href="/b">b</a>` }, "/a": { body: "ok" } });
    try {
      const { detail } = await crawl(small, root.url("/"));
      expect(detail).toMatchObject({ status: "completed", pages_cut: 1, pages_crawled: 2, total_links: 1 });
      expect(detail.warnings).toEqual([expect.stringContaining("1 page was cut")]);
    } finally {
      await root.stop();
    }
  });
});

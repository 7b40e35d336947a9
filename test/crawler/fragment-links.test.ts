import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient } from "../ui/dashboard-client.ts";

/**
 * Issue 39, "a link's fragment is lost": a page links `/a.html#present`, `#absent` and `#top`. With
 * check_fragments each URL with its fragment is a Link of its own (its `url` keeps the fragment, its own text,
 * its own verdict) while /a.html is fetched once; the listings, counts, `broken_links.found`, the dashboard and
 * the changes between two such crawls all follow that identity. Without the option: one Link, as ever.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html; charset=utf-8" } });
const ROOT = `<a href="/a.html#present">present fragment</a> <a href="/a.html#absent">absent fragment</a> <a href="/a.html#top">top</a>
  <a href="/a.html#present">present again</a>`;

let svc: TestService;
let site: LoopbackSite;
let domainId: string;

beforeAll(async () => {
  site = await startLoopbackSite({ "/": () => html(ROOT), "/a.html": () => html(`<h2 id="present">P</h2>`) });
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
  domainId = await verifiedDomain(svc, site.url("/"));
  // Only its outbox rows are read: the payload a receiver would get.
  const hook = await svc.call("POST", "/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["broken_links.found"] } });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${hook.text}`);
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

/** A crawl of `domain` with `options`: its detail, links, broken links and the requests the site got meanwhile. */
async function crawl(domain: string, on: LoopbackSite, options: Record<string, boolean>) {
  const before = on.requests.length;
  const id = await startCrawl(svc, domain, options);
  const detail = await waitForCrawl(svc, id, 20_000);
  return {
    id,
    detail,
    links: await readAll(svc, `/crawls/${id}/links`),
    broken: await readAll(svc, `/crawls/${id}/broken`),
    requests: on.requests.slice(before),
  };
}

/** [url, link_text, is_broken, error] of links. */
const verdicts = (links: any[]) => links.map((link) => [link.url, link.link_text, link.is_broken, link.error]);

describe("with check_fragments", () => {
  let run: Awaited<ReturnType<typeof crawl>>;
  beforeAll(async () => {
    run = await crawl(domainId, site, { check_fragments: true });
  }, 25_000); // one crawl

  test("three Links, each with its URL's fragment, its own text and its own verdict; /a.html fetched once", () => {
    expect(verdicts(run.links)).toEqual([
      [site.url("/a.html#present"), "present fragment", false, null],
      [site.url("/a.html#absent"), "absent fragment", true, "fragment #absent not found"],
      [site.url("/a.html#top"), "top", false, null],
    ]);
    for (const link of run.links) expect(link).toMatchObject({ source_url: site.url("/"), status_code: 200, final_url: site.url("/a.html"), kind: "anchor" });
    expect(run.requests.filter((line) => line.endsWith(" /a.html"))).toEqual(["GET /a.html"]);
  });

  test("totals are exact: 3 links, 1 broken, and every filter agrees", async () => {
    expect(run.detail).toMatchObject({ status: "completed", total_links: 3, broken_links: 1, pages_crawled: 2, warnings: [] });
    const byStatus = await svc.call("GET", `/crawls/${run.id}/links?status_code=200`);
    expect(byStatus.json.meta.total).toBe(3);
    const working = await svc.call("GET", `/crawls/${run.id}/links?is_broken=false`);
    expect(working.json.meta.total).toBe(2);
    expect(working.json.data.map((link: any) => link.url)).toEqual([site.url("/a.html#present"), site.url("/a.html#top")]);
    const brokenWith200 = await svc.call("GET", `/crawls/${run.id}/links?status_code=200&is_broken=true`);
    expect(brokenWith200.json.meta.total).toBe(1);
  });

  test("/broken names the bad link by its own URL and text", async () => {
    expect(run.broken).toEqual(
      [
        {
          url: site.url("/a.html#absent"),
          source_url: site.url("/"),
          status_code: 200,
          link_text: "absent fragment",
          final_url: site.url("/a.html"),
          kind: "anchor",
          error: "fragment #absent not found",
          warning: null,
        },
      ].map((link) => expect.objectContaining(link)),
    );
    expect(run.broken[0]).not.toHaveProperty("is_broken");
    const page = await svc.call("GET", `/crawls/${run.id}/broken`);
    expect(page.json.meta.total_broken).toBe(1);
  });

  test("broken_links.found samples the link's URL with its fragment", () => {
    const row = svc.runtime.store
      .sqlite!.query("SELECT payload FROM webhook_deliveries WHERE event = 'broken_links.found' AND json_extract(payload, '$.data.crawl_id') = ?")
      .get(run.id) as { payload: string } | null;
    expect(JSON.parse(row!.payload).data).toMatchObject({ broken_count: 1, sample_links: [{ url: site.url("/a.html#absent"), status_code: 200 }] });
  });

  test("the dashboard's broken target lists the bad link's own text, not the first link's", async () => {
    const client = await signedInClient(svc);
    const page = await client.get(`/ui/crawls/${run.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("1 broken target.");
    expect(page.html).toContain("“absent fragment”");
    expect(page.html).toContain("fragment #absent not found");
    expect(page.html).not.toContain("“present fragment”");
  });
});

test("without check_fragments: one Link to /a.html, the first link's text, nothing judged", async () => {
  const run = await crawl(domainId, site, {});
  expect(verdicts(run.links)).toEqual([[site.url("/a.html"), "present fragment", false, null]]);
  expect(run.detail).toMatchObject({ status: "completed", total_links: 1, broken_links: 0 });
  expect(run.requests.filter((line) => line.endsWith(" /a.html"))).toEqual(["GET /a.html"]);
}, 20_000); // one crawl

test("changes between two crawls with check_fragments: by URL with its fragment", async () => {
  let version = 1;
  const changing = await startLoopbackSite({
    "/": () => html(ROOT),
    "/a.html": () => html(version === 1 ? `<h2 id="present">P</h2>` : `<h2 id="absent">A</h2>`),
  });
  try {
    const domain = await verifiedDomain(svc, changing.url("/"));
    const first = await crawl(domain, changing, { check_fragments: true });
    version = 2;
    const second = await crawl(domain, changing, { check_fragments: true });
    expect(second.broken.map((link) => link.url)).toEqual([changing.url("/a.html#present")]);
    const changes = await svc.call("GET", `/crawls/${second.id}/changes`);
    expect(changes.json.meta).toMatchObject({ against_crawl_id: first.id, new_broken: 1, fixed: 1, total: 2 });
    expect(changes.json.data.map((link: any) => [link.change, link.url, link.link_text, link.error])).toEqual([
      ["new_broken", changing.url("/a.html#present"), "present fragment", "fragment #present not found"],
      ["fixed", changing.url("/a.html#absent"), "absent fragment", "fragment #absent not found"],
    ]);
    expect(second.detail).toMatchObject({ total_links: 3, broken_links: 1, new_broken_links: 1 });
  } finally {
    await changing.stop();
  }
}, 30_000); // two crawls

test("a page that gives no answer when fetched again for its ids: a warning on the link, and the crawl says how many and why", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state = svc.runtime.store.sqlite!.query(
    "SELECT state FROM crawl_targets WHERE url = ? AND crawl_id IN (SELECT id FROM crawls WHERE status = 'running')",
  );
  const quiet = await startLoopbackSite({
    "/": () => html(`<img src="/pic.html" alt="p"> <a href="/later.html">later</a>`),
    // Held until /pic.html is checked as an image (HEAD), so its fragment must be judged from a GET of its own.
    "/later.html": async (_request, self) => {
      for (let i = 0; i < 250 && (state.get(self.url("/pic.html")) as { state: string } | null)?.state !== "done"; i++) await Bun.sleep(20);
      return html(`<a href="/pic.html#x">x</a>`);
    },
    // Its GET never answers within the crawler's 2 s header timeout.
    "/pic.html": async (request) => {
      if (request.method === "GET") await Promise.race([released, Bun.sleep(10_000)]);
      return html(`<p id="x">x</p>`);
    },
  });
  try {
    const domain = await verifiedDomain(svc, quiet.url("/"));
    const run = await crawl(domain, quiet, { check_fragments: true, scan_images: true });
    const link = run.links.find((one) => one.url === quiet.url("/pic.html#x"));
    expect(link).toMatchObject({ status_code: 200, is_broken: false, error: null });
    expect(link.warning).toStartWith("fragment #x not checked: the page was not read for its ids");
    expect(run.detail.warnings).toEqual([
      "1 link's #fragment was not checked: the page, checked without being read, gave no answer when fetched again for its ids, or was past the 10,000 such fetches of a crawl; those links carry a warning and are not counted as broken",
    ]);
  } finally {
    release();
    await quiet.stop();
  }
}, 30_000); // a crawl waiting out a header timeout

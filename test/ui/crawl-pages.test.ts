import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";

/**
 * The crawl page: broken links grouped by target with the pages linking to them, filters, numbered pages,
 * report downloads, progress JSON, what changed since the previous crawl, and cancel.
 */

const MANY = 120;
let svc: TestService;
let site: LoopbackSite;
let client: DashboardClient;
let domainId: string;
let crawlId: string;
let fixed = false;

const page = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

beforeAll(async () => {
  // Above the 2 s test default: the running-crawl test holds /slow until it has cancelled the crawl.
  svc = await startTestService({ crawler: { header_timeout: "30s" } });
  const many = Array.from({ length: MANY }, (_, i) => `<a href="/many/${String(i).padStart(3, "0")}">m${i}</a>`).join("");
  site = await startLoopbackSite({
    "/": page(`<a href="/a">A</a><a href="/b">B</a><a href="/missing">Missing</a><a href="/gone">Gone</a><img src="/broken.png"><a href="/list">list</a>`),
    "/a": page(`<a href="/missing">Missing from A</a><a href="/">home</a>`),
    "/b": page(`<a href="/missing">Missing from B</a>`),
    "/list": page(many),
    "/gone": () => new Response("gone", { status: fixed ? 200 : 410, headers: { "content-type": "text/plain" } }),
  });
  domainId = await verifiedDomain(svc, site.url("/"));
  crawlId = await startCrawl(svc, domainId, { scan_images: true });
  await waitForCrawl(svc, crawlId);
  client = await signedInClient(svc);
}, 30_000); // one crawl of the loopback site

afterAll(async () => {
  await svc.stop();
  await site.stop();
});

/** The broken-target rows of a crawl page: target URL and its link count. */
function rows(html: string): { url: string; links: number }[] {
  return [...html.matchAll(/<tr class="broken-target"[^>]*><td><a class="url" href="([^"]+)"[^>]*>[^<]*<\/a>.*?<td class="num">(\d+)<\/td>/g)].map((m) => ({
    url: m[1]!,
    links: Number(m[2]),
  }));
}

describe("crawl page", () => {
  test("one row per broken target, with its link count and the pages linking to it", async () => {
    const answer = await client.get(`/ui/crawls/${crawlId}`);
    expect(answer.status).toBe(200);
    const missing = rows(answer.html).find((row) => row.url === site.url("/missing"));
    expect(missing).toEqual({ url: site.url("/missing"), links: 3 });
    for (const source of ["/", "/a", "/b"]) expect(answer.html).toContain(`href="${site.url(source)}"`);
    expect(answer.html).toContain("“Missing from B”");
    expect(answer.html).toContain(`${MANY + 3} broken targets.`);
  });

  test("filters: status, kind, internal/external and URL search", async () => {
    const byStatus = rows((await client.get(`/ui/crawls/${crawlId}?status=410`)).html);
    expect(byStatus.map((r) => r.url)).toEqual([site.url("/gone")]);
    const images = rows((await client.get(`/ui/crawls/${crawlId}?kind=image`)).html);
    expect(images.map((r) => r.url)).toEqual([site.url("/broken.png")]);
    const external = await client.get(`/ui/crawls/${crawlId}?scope=external`);
    expect(rows(external.html)).toEqual([]);
    expect(external.html).toContain("0 broken targets match the filters.");
    const internal = await client.get(`/ui/crawls/${crawlId}?scope=internal&q=MISS`);
    expect(rows(internal.html).map((r) => r.url)).toEqual([site.url("/missing")]);
    const percent = await client.get(`/ui/crawls/${crawlId}?q=${encodeURIComponent("%")}`);
    expect(rows(percent.html)).toEqual([]);
  });

  test("numbered pages: every broken target exactly once, 50 at a time", async () => {
    const seen: string[] = [];
    let path: string | null = `/ui/crawls/${crawlId}`;
    for (let i = 0; i < 10 && path !== null; i++) {
      const answer = await client.get(path);
      const found = rows(answer.html);
      expect(found.length).toBeLessThanOrEqual(50);
      seen.push(...found.map((r) => r.url));
      const next = /<a href="([^"]+)" rel="next">/.exec(answer.html)?.[1];
      path = next === undefined ? null : next.replaceAll("&amp;", "&");
    }
    expect(path).toBeNull();
    expect(seen).toHaveLength(MANY + 3);
    expect(new Set(seen).size).toBe(MANY + 3);
  });

  test("report downloads in CSV and JSON hold every link", async () => {
    const detail = await svc.runtime.crawls.get(crawlId);
    const csv = await client.get(`/ui/crawls/${crawlId}/report.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toStartWith("text/csv");
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="linkpatrol-${crawlId}.csv"`);
    expect(csv.html.trim().split("\n")).toHaveLength(detail.total_links + 1);
    const json = await client.get(`/ui/crawls/${crawlId}/report.json`);
    const report = JSON.parse(json.html);
    expect(report.links).toHaveLength(detail.total_links);
    expect(report.summary.broken_links).toBe(detail.broken_links);
  });

  test("progress JSON gives the numbers only", async () => {
    const answer = await client.get(`/ui/crawls/${crawlId}/progress.json`);
    const detail = await svc.runtime.crawls.get(crawlId);
    expect(JSON.parse(answer.html)).toMatchObject({
      status: "completed",
      pages_crawled: detail.pages_crawled,
      total_links: detail.total_links,
      broken_links: detail.broken_links,
      targets_queued: 0,
      seconds_left: null,
    });
  });

  test("what changed since the previous crawl", async () => {
    fixed = true;
    const second = await startCrawl(svc, domainId, { scan_images: true });
    await waitForCrawl(svc, second);
    const answer = await client.get(`/ui/crawls/${second}/changes`);
    expect(answer.status).toBe(200);
    expect(answer.html).toContain("<strong>0</strong> newly broken, <strong>1</strong> fixed, <strong>0</strong> not checked this time.");
    expect(answer.html).toContain(`href="${site.url("/gone")}"`);
    expect(answer.html).toContain(`href="/ui/crawls/${crawlId}"`);
  });

  test("a running crawl shows live progress and can be cancelled once", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await startLoopbackSite({
      "/": page(`<a href="/slow">slow</a>`),
      "/slow": async () => {
        await held;
        return new Response("late");
      },
    });
    try {
      const slowDomain = await verifiedDomain(svc, slow.url("/"));
      const id = await startCrawl(svc, slowDomain);
      const running = await client.get(`/ui/crawls/${id}`);
      expect(running.html).toContain(`data-progress-url="/ui/crawls/${id}/progress.json"`);
      expect(running.html).toContain('<meta http-equiv="refresh" content="5"/>');
      expect(running.html).toContain('data-confirm="Cancel this crawl?');
      const cancelled = await client.post(`/ui/crawls/${id}/cancel`);
      expect(cancelled.status).toBe(303);
      expect(await svc.runtime.crawls.get(id)).toMatchObject({ status: "failed", error: "cancelled" });
      // It says cancelled wherever it is shown: its page, its domain's crawls, the overview.
      const badge = '<span class="badge neutral" title="status failed, failure cancelled">cancelled</span>';
      const shown = await client.get(`/ui/crawls/${id}`);
      expect(shown.html).toContain(badge);
      expect(shown.html).toContain("Cancelled: the counts and links below are what the crawl had found when it was cancelled, and final.");
      expect((await client.get(`/ui/domains/${slowDomain}`)).html).toContain(badge);
      expect((await client.get("/")).html).toContain(badge);
      const again = await client.post(`/ui/crawls/${id}/cancel`);
      expect(again.status).toBe(409);
      expect(again.html).toContain("already ended");
    } finally {
      release();
      await slow.stop();
    }
  });
});

describe("page links", () => {
  test("the changes view links the pages before and after the one shown, and says where it is", async () => {
    // The first crawl's broken links are all new: more than one page of changes.
    const first = await client.get(`/ui/crawls/${crawlId}/changes`);
    expect(first.status).toBe(200);
    expect(first.html).toMatch(/Page 1 of [2-9]/);
    expect(first.html).toContain(`href="/ui/crawls/${crawlId}/changes?page=2"`);
    expect(first.html).not.toContain(">Previous<");
    const second = await client.get(`/ui/crawls/${crawlId}/changes?page=2`);
    expect(second.html).toMatch(/Page 2 of [2-9]/);
    expect(second.html).toContain(`href="/ui/crawls/${crawlId}/changes?page=1"`);
  });
});

describe("what a crawl checked, and since when its links are broken", () => {
  test("an anchors-only crawl after one with images: its options in words, the image not checked this time (never fixed), the anchor broken for as long as it has been", async () => {
    const optionsSite = await startLoopbackSite({
      "/": page(`<a href="/gone">Gone</a><img src="/turtle-star.png" alt="turtle">`),
      "/gone": { status: 404 },
    });
    try {
      const domain = await verifiedDomain(svc, optionsSite.url("/"));
      const first = await startCrawl(svc, domain, { scan_images: true });
      await waitForCrawl(svc, first);
      const second = await startCrawl(svc, domain);
      await waitForCrawl(svc, second);

      const firstPage = await client.get(`/ui/crawls/${first}`);
      expect(firstPage.html).toContain("Checked: anchors, images; internal links only");
      expect(firstPage.html).toContain("new in this crawl");
      const secondPage = await client.get(`/ui/crawls/${second}`);
      expect(secondPage.html).toContain("Checked: anchors only; internal links only");
      expect(secondPage.html).toMatch(/broken for \d+ (s|min)/);
      expect(rows(secondPage.html)).toEqual([{ url: optionsSite.url("/gone"), links: 1 }]);
      // Its broken count (1) leaves out the image it did not check: the page says how many, linked to the changes.
      expect(secondPage.html).toContain(`<div id="not-checked"><dt>Not checked this time</dt><dd><a href="/ui/crawls/${second}/changes">1</a></dd></div>`);
      expect(firstPage.html).not.toContain('id="not-checked"');
      // The overview's broken count is the same crawl's: it says the same beside it.
      const overview = await client.get("/");
      expect(overview.html).toContain(`<a href="/ui/crawls/${second}/changes">+1 not checked</a>`);

      const changes = await client.get(`/ui/crawls/${second}/changes`);
      expect(changes.html).toContain("<strong>0</strong> newly broken, <strong>0</strong> fixed, <strong>1</strong> not checked this time.");
      expect(changes.html).toContain('<span class="badge warn">not checked this time</span>');
      expect(changes.html).not.toContain('<span class="badge ok">fixed</span>');
      expect(changes.html).toContain(`href="${optionsSite.url("/turtle-star.png")}"`);
      expect(changes.html).toContain("They are not in this crawl&#39;s broken count");
      expect(changes.html).not.toContain("still counted as broken");
    } finally {
      await optionsSite.stop();
    }
  }, 20_000); // two crawls of a two-page loopback site
});

describe("crawl page with check_fragments", () => {
  test("a target broken only by a missing fragment says so, and each linking page shows its fragment error", async () => {
    const fragmentSite = await startLoopbackSite({
      "/": page(`<a href="/doc#present">ok</a><a href="/doc-other#absent">gone section</a><a href="/doc-other">plain</a>`),
      "/doc": page(`<h2 id="present">here</h2>`),
      "/doc-other": page(`<h2 id="other">there</h2>`),
    });
    try {
      const domain = await verifiedDomain(svc, fragmentSite.url("/"));
      const crawl = await startCrawl(svc, domain, { check_fragments: true });
      await waitForCrawl(svc, crawl);
      const answer = await client.get(`/ui/crawls/${crawl}`);
      expect(answer.status).toBe(200);
      expect(rows(answer.html)).toEqual([{ url: fragmentSite.url("/doc-other"), links: 1 }]);
      expect(answer.html).toContain("HTTP 200 · fragment not found");
      expect(answer.html).toContain("fragment #absent not found");
    } finally {
      await fragmentSite.stop();
    }
  }, 20_000); // one crawl of a three-page loopback site
});

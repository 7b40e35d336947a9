import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_WARNING_BYTES, MAX_WARNING_ENTRIES } from "../../src/core/crawl-warnings.ts";
import { SITEMAP_MAX_DEPTH } from "../../src/core/sitemap-limits.ts";
import { runCli } from "../helpers/cli.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * A two-page site whose sitemap index names thousands of off-site sitemaps and many indexes that each name
 * thousands more (issue 38's attack, scaled down: one warning string per name made a 395 MB crawl row), plus a
 * URL set of off-site entries, a sitemap of deep nesting and stray end tags, and an empty one. Over real sockets:
 * the crawl row, the crawl detail, the `crawl.completed` body a real receiver gets, the warnings table and
 * `linkpatrol check`'s stderr all stay small, and still say what happened: each cause once, with its count.
 */

/** Off-site names per index, and the indexes the root index names besides them. */
const OFF_SITE = 5_000;
const INDEXES = 20;
const ENTRIES_OFF_SITE = 5_000;

let site: LoopbackSite;
let svc: TestService;
let receiver: WebhookReceiver;
let crawlId: string;
let detailText: string;
let detail: any;

const xml = (body: string) => new Response(body, { headers: { "content-type": "application/xml" } });
const offSiteIndex = (tag: string) =>
  `<sitemapindex>${Array.from({ length: OFF_SITE }, (_, i) => `<sitemap><loc>https://evil-${tag}-${i}.example/sitemap.xml</loc></sitemap>`).join("")}`;

function hostileSite(): Promise<LoopbackSite> {
  const indexes = Array.from({ length: INDEXES }, (_, j) => `<sitemap><loc>/index-${j}.xml</loc></sitemap>`).join("");
  const extras = ["/urls.xml", "/deep.xml", "/empty.xml"].map((path) => `<sitemap><loc>${path}</loc></sitemap>`).join("");
  const root = `${offSiteIndex("root")}${indexes}${extras}</sitemapindex>`;
  const nested = Array.from({ length: INDEXES }, (_, j) => `${offSiteIndex(String(j))}</sitemapindex>`);
  const urls = `<urlset><url><loc>/a</loc></url>${Array.from({ length: ENTRIES_OFF_SITE }, (_, i) => `<url><loc>https://elsewhere.example/p${i}</loc></url>`).join("")}</urlset>`;
  // Stray end tags under 250 open elements: htmlparser2 searched every open element for each of them.
  const deep = `<urlset><url><loc>/b</loc></url>${"<b>".repeat(250)}${"</x>".repeat(250_000)}</urlset>`;
  return startLoopbackSite({
    "/": { body: "<a href='/a'>A</a>" },
    "/a": { body: "<a href='/'>Home</a>" },
    "/b": { body: "an orphan page" },
    "/sitemap.xml": () => xml(root),
    "/urls.xml": () => xml(urls),
    "/deep.xml": () => xml(deep),
    "/empty.xml": () => xml("<urlset>\n</urlset>"),
    ...Object.fromEntries(nested.map((body, j) => [`/index-${j}.xml`, () => xml(body)])),
  });
}

beforeAll(async () => {
  site = await hostileSite();
  receiver = await startWebhookReceiver({ tls: false });
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
  const hook = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl("/hook"), events: ["crawl.completed"] } });
  receiver.useSecret(hook.json.data.secret);
  crawlId = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { use_sitemap: true });
  await waitForCrawl(svc, crawlId, 60_000);
  const res = await svc.call("GET", `/crawls/${crawlId}`);
  detailText = res.text;
  detail = res.json.data;
  await receiver.waitFor((requests) => requests.length >= 1, 15_000);
}, 90_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all([site?.stop(), receiver?.stop()]);
});

test("the crawl completes and says what happened, one entry per cause with its full count", () => {
  expect(detail).toMatchObject({ status: "completed", pages_crawled: 2, sitemap_urls: 2, orphan_pages: 1 });
  expect(detail.warning_causes).toEqual([
    { cause: "sitemap_off_site", count: OFF_SITE * (INDEXES + 1) },
    { cause: "sitemap_entries_off_site", count: ENTRIES_OFF_SITE },
    { cause: "sitemap_too_deep", count: 1 },
    { cause: "sitemap_empty", count: 1 },
  ]);
  expect(detail.warnings[0]).toStartWith(
    `${OFF_SITE * (INDEXES + 1)} sitemap names point off the crawled site; not read (first 5: https://evil-root-0.example/sitemap.xml in ${site.url("/sitemap.xml")}, `,
  );
  expect(detail.warnings[2]).toBe(
    `1 sitemap nests elements more than ${SITEMAP_MAX_DEPTH} deep; reading stopped there, entries before it were kept (${site.url("/deep.xml")})`,
  );
  expect(detail.warnings[3]).toBe(`1 sitemap lists no entries (${site.url("/empty.xml")})`);
});

test("the crawl row and the crawl detail stay small", () => {
  const row = svc.runtime.store.sqlite!.query("SELECT * FROM crawls WHERE id = ?").get(crawlId);
  expect(JSON.stringify(row).length).toBeLessThan(2_048);
  expect(new TextEncoder().encode(detailText).length).toBeLessThan(8 * 1024);
});

test("the warnings table holds a bounded number of rows and bytes", () => {
  const stored = svc.runtime.store
    .sqlite!.query<{ rows: number; bytes: number }, [string]>(
      "SELECT count(*) AS rows, sum(length(cause) + length(message) + length(samples)) AS bytes FROM crawl_warnings WHERE crawl_id = ?",
    )
    .get(crawlId)!;
  expect(stored.rows).toBe(4);
  expect(stored.rows).toBeLessThanOrEqual(MAX_WARNING_ENTRIES + 1);
  expect(stored.bytes).toBeLessThan(MAX_WARNING_BYTES);
});

test("the crawl.completed body a real receiver gets stays small and carries the aggregate", () => {
  const request = receiver.requests.find((r) => r.headers["x-service-event"] === "crawl.completed")!;
  expect(request.verified).toBe(true);
  expect(request.rawBody.length).toBeLessThan(8 * 1024);
  const data = JSON.parse(request.rawBody.toString("utf8")).data;
  expect(data.warnings).toEqual(detail.warnings);
  expect(data.warning_causes).toEqual(detail.warning_causes);
});

test("linkpatrol check on the same site: a small stderr and report with the same warnings", async () => {
  const result = await runCli(["check", site.url("/"), "--sitemap", "--allow-private", "--format", "json"], { timeoutMs: 60_000 });
  expect(result.exitCode).toBe(0);
  expect(result.stderr.length).toBeLessThan(8 * 1024);
  expect(result.stderr.split("\n").filter((line) => line.startsWith("linkpatrol: warning: "))).toHaveLength(4);
  const report = JSON.parse(result.stdout);
  expect(report.summary.warnings).toHaveLength(4);
  expect(report.summary.warnings[0]).toStartWith(`${OFF_SITE * (INDEXES + 1)} sitemap names point off the crawled site`);
  expect(result.stdout.length).toBeLessThan(16 * 1024);
}, 60_000);

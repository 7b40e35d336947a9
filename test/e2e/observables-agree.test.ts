import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type ReceivedRequest, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * One site, every way of looking at its crawl: `linkpatrol check --format json` (a subprocess with its own
 * store), the API over a real socket (/crawls/{id}, /crawls list, /links, /broken, /changes) and the webhook
 * deliveries a real HTTPS receiver verifies with its own code. The site mixes what a link checker meets: ok
 * pages, 404s, a 500, a redirect to a 200 and one to a 404, a port where nothing listens, an image, a script,
 * a stylesheet, a link repeated on several pages, an external bot wall (403) and a robots.txt-disallowed
 * path, and an href no URL parser accepts. Every observable of the same crawl must say the same thing;
 * durations and timestamps are not compared. Then the site changes (one broken link fixed, one newly broken)
 * and a second API crawl's /changes must list exactly those two.
 */

/** Link fields every view of a crawl must agree on (final_url too: it is as deterministic as the status). */
const LINK_FIELDS = ["url", "source_url", "status_code", "is_broken", "link_text", "kind", "error", "warning", "final_url"] as const;
const BROKEN_FIELDS = LINK_FIELDS.filter((field) => field !== "is_broken");
const EVENTS = ["crawl.started", "crawl.completed", "crawl.failed", "broken_links.found"];
/** What `check --all` turns on. */
const ALL_ON = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true, scan_media: true };

/** A link as one canonical string of the compared fields, so lists compare as sorted multisets. */
function canonical(link: Record<string, unknown>, fields: readonly string[] = LINK_FIELDS): string {
  return JSON.stringify(fields.map((field) => [field, link[field]]));
}
const multiset = (links: Record<string, unknown>[], fields: readonly string[] = LINK_FIELDS) => links.map((link) => canonical(link, fields)).sort();

/** A port on 127.0.0.1 where nothing listens (bound once, then closed). */
function closedPort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port ?? 0;
  server.stop(true);
  return port;
}

let night = 1;
let site: LoopbackSite;
let external: LoopbackSite;
let receiver: WebhookReceiver;
let svc: TestService;
let refused: string;

const html = (body: string, status = 200) =>
  new Response(`<!doctype html><html><body>${body}</body></html>`, { status, headers: { "content-type": "text/html; charset=utf-8" } });

beforeAll(async () => {
  refused = `http://127.0.0.1:${closedPort()}`;
  external = await startLoopbackSite({
    "/fine": { body: "<p>fine</p>" },
    "/walled": { status: 403, body: "are you a robot?" },
  });
  site = await startLoopbackSite({
    "/robots.txt": { body: "User-agent: *\nDisallow: /private/\n", headers: { "content-type": "text/plain" } },
    "/": () =>
      new Response(
        `<!doctype html><html><head><title>Home</title>
        <link rel="stylesheet" href="/css/site.css"><script src="/js/app.js"></script></head><body>
        <img src="/img/logo.png" alt="Logo"> <img src="/img/missing.png" alt="Missing logo">
        <a href="/about">  About &amp; us </a> <a href="/about#team">About, the team</a>
        <a href="/docs">Docs</a> <a href="/missing">Missing page</a> <a href="/error">Server error</a>
        <a href="/moved">Moved page</a> <a href="/old">Old page</a>
        <a href="${refused}/">Nothing listens</a>
        <a href="${external.url("/walled")}">Bot wall</a> <a href="${external.url("/fine")}">Elsewhere</a>
        <a href="/private/secret">Private</a> <a href="mailto:someone@example.com">Mail</a>
        <a href="http://[not-an-address/">Unparseable</a>
        </body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
    "/about": () =>
      html(
        `<img src="/img/logo.png" alt="Logo"><a href="/">Home</a> <a href="/missing">Missing again</a> <a href="/docs">Docs</a> <a href="/fixme">Fix me</a>`,
      ),
    "/docs": () =>
      html(
        `<link rel="stylesheet" href="/css/site.css"><a href="/missing">Still missing</a> <a href="/about">About</a> <a href="/flaky">Flaky</a> <a href="/error">Error again</a>`,
      ),
    "/landing": () => html(`<a href="/docs">Docs from landing</a>`),
    "/moved": { status: 301, headers: { location: "/landing" } },
    "/old": { status: 302, headers: { location: "/gone" } },
    "/gone": { status: 404, body: "gone" },
    "/error": { status: 500, body: "boom" },
    // The change between the two API crawls: /fixme is fixed, /flaky breaks.
    "/fixme": () => (night === 1 ? html("not yet", 404) : html("fixed")),
    "/flaky": () => (night === 1 ? html("fine for now") : html("gone now", 410)),
    "/css/site.css": { body: "body { color: #333 }", headers: { "content-type": "text/css" } },
    "/js/app.js": { body: "console.log('hi')", headers: { "content-type": "text/javascript" } },
    "/img/logo.png": { body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), headers: { "content-type": "image/png" } },
  });
  receiver = await startWebhookReceiver({});
  svc = await startTestService({ webhooks: { ca_file: receiver.caFile, allow_private_targets: true } });
});
afterAll(async () => {
  await svc?.stop();
  await Promise.all([site?.stop(), external?.stop(), receiver?.stop()]);
});

const bodyOf = (request: ReceivedRequest) => JSON.parse(request.rawBody.toString("utf8"));
/** The deliveries of one crawl, by event, each with whether the receiver verified its signature. */
function deliveriesOf(crawlId: string): Map<string, any[]> {
  const byEvent = new Map<string, any[]>();
  for (const request of receiver.requests) {
    const body = bodyOf(request);
    if (body.data?.crawl_id !== crawlId) continue;
    byEvent.set(body.event, [...(byEvent.get(body.event) ?? []), { ...body, verified: request.verified, header: request.headers["x-service-event"] }]);
  }
  return byEvent;
}

/** Everything the API says about one crawl. */
async function apiView(id: string) {
  const detail = (await svc.call("GET", `/crawls/${id}`)).json.data;
  const links = await readAll(svc, `/crawls/${id}/links`);
  const broken = await readAll(svc, `/crawls/${id}/broken`);
  const linksMeta = (await svc.call("GET", `/crawls/${id}/links?limit=1`)).json.meta;
  const brokenOnlyMeta = (await svc.call("GET", `/crawls/${id}/links?is_broken=true&limit=1`)).json.meta;
  const brokenMeta = (await svc.call("GET", `/crawls/${id}/broken?limit=1`)).json.meta;
  const list = (await svc.call("GET", `/crawls?domain_id=${detail.domain_id}&limit=100`)).json.data;
  const summary = list.find((item: any) => item.id === id);
  return { detail, links, broken, linksMeta, brokenOnlyMeta, brokenMeta, summary };
}

/** Everything the API and the receiver say about one ended crawl; waits (bounded) for its three deliveries. */
async function collect(id: string) {
  const view = await apiView(id);
  // Deliveries are sent by a dispatcher polling once a second.
  const expected = ["crawl.started", "crawl.completed", "broken_links.found"];
  await receiver.waitFor(() => expected.every((event) => deliveriesOf(id).has(event)), 10_000).catch(() => {});
  return { ...view, deliveries: deliveriesOf(id) };
}

type Collected = Awaited<ReturnType<typeof collect>>;

/** The API's own views of one crawl agree with each other. */
function expectApiViewsAgree({ detail, links, broken, linksMeta, brokenOnlyMeta, brokenMeta, summary }: Collected) {
  expect(detail.status).toBe("completed");
  expect(links.length).toBe(detail.total_links);
  expect(links.filter((link) => link.is_broken).length).toBe(detail.broken_links);
  expect(linksMeta.total).toBe(detail.total_links);
  expect(brokenOnlyMeta.total).toBe(detail.broken_links);
  expect(brokenMeta.total_broken).toBe(detail.broken_links);
  expect(broken.length).toBe(detail.broken_links);
  for (const item of broken) expect(item).not.toHaveProperty("is_broken");
  expect(multiset(broken, BROKEN_FIELDS)).toEqual(
    multiset(
      links.filter((link) => link.is_broken),
      BROKEN_FIELDS,
    ),
  );
  expect(summary).toMatchObject({ status: detail.status, total_links: detail.total_links, broken_links: detail.broken_links, domain_name: detail.domain_name });
}

/** The webhook deliveries of one crawl agree with the API. */
function expectWebhooksAgree({ detail, broken, deliveries }: Collected) {
  expect([...deliveries.keys()].sort()).toEqual(["broken_links.found", "crawl.completed", "crawl.started"]);
  for (const [event, sent] of deliveries) {
    expect(sent.length).toBe(1); // one delivery per event (no retries were needed)
    expect(sent[0].verified).toBe(true);
    expect(sent[0].header).toBe(event);
    expect(sent[0].data.domain_name).toBe(detail.domain_name);
  }
  expect(deliveries.get("crawl.started")![0].data.crawl_id).toBe(detail.id);
  const completed = deliveries.get("crawl.completed")![0].data;
  expect(completed).toMatchObject({ crawl_id: detail.id, total_links: detail.total_links, broken_links: detail.broken_links });
  // Any further field the payload shares with the crawl detail (new_broken_links, warnings, …) agrees too.
  const shared = Object.keys(completed).filter((key) => key in detail && !/_at$|duration/.test(key));
  expect(Object.fromEntries(shared.map((key) => [key, completed[key]]))).toEqual(Object.fromEntries(shared.map((key) => [key, detail[key]])));
  const found = deliveries.get("broken_links.found")![0].data;
  expect(found.broken_count).toBe(detail.broken_links);
  if ("new_broken_links" in found) expect(found.new_broken_links).toBe(detail.new_broken_links);
  const brokenTargets = new Map(broken.map((link: any) => [link.url, link.status_code]));
  expect(found.sample_links.length).toBe(Math.min(10, brokenTargets.size));
  expect(new Set(found.sample_links.map((sample: any) => sample.url)).size).toBe(found.sample_links.length);
  for (const sample of found.sample_links) {
    expect({ url: sample.url, status_code: brokenTargets.get(sample.url) }).toEqual({ url: sample.url, status_code: sample.status_code });
  }
}

describe("check --format json, the API and the webhooks tell the same story", () => {
  let report: any;
  let exitCode: number;
  let first: Collected;
  let second: Collected;
  let firstId: string;
  let secondId: string;

  beforeAll(async () => {
    const cli = await runCli(["check", site.url("/"), "--allow-private", "--all", "--format", "json"], { timeoutMs: 20_000 });
    exitCode = cli.exitCode;
    try {
      report = JSON.parse(cli.stdout);
    } catch {
      throw new Error(`check did not print JSON (exit ${cli.exitCode}):\n${cli.stdout}\n${cli.stderr}`);
    }

    const hook = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl("/hook"), name: "everything", events: EVENTS } });
    expect(hook.status).toBe(201);
    receiver.useSecret(hook.json.data.secret);
    const domainId = await verifiedDomain(svc, site.url("/"));
    firstId = await startCrawl(svc, domainId, ALL_ON);
    await waitForCrawl(svc, firstId, 15_000);
    first = await collect(firstId);

    night = 2;
    secondId = await startCrawl(svc, domainId, ALL_ON);
    await waitForCrawl(svc, secondId, 15_000);
    second = await collect(secondId);
  }, 15_000); // a `check` child process and two API crawls with their webhook deliveries

  test.each(["first", "second"] as const)("the %s API crawl: /crawls/{id}, the crawl list, /links, /broken and their meta agree", (which) => {
    expectApiViewsAgree(which === "first" ? first : second);
  });

  test.each(["first", "second"] as const)("the %s API crawl: crawl.started, crawl.completed and broken_links.found agree with the API", (which) => {
    expectWebhooksAgree(which === "first" ? first : second);
  });

  test("the site's mix is really in the crawl (so agreeing is not agreeing on nothing)", () => {
    const { links } = first;
    const statuses = new Set(links.map((link) => link.status_code));
    for (const status of [0, 200, 403, 404, 500]) expect(statuses).toContain(status);
    expect(new Set(links.map((link) => link.kind))).toEqual(new Set(["anchor", "image", "script", "stylesheet"]));
    expect(links.some((link) => link.final_url !== null && link.final_url !== link.url && link.status_code === 200)).toBe(true);
    expect(links.some((link) => link.final_url !== null && link.final_url !== link.url && link.status_code === 404)).toBe(true);
    expect(links.some((link) => link.status_code === 403 && !link.is_broken && link.warning !== null)).toBe(true);
    expect(links.filter((link) => link.url === site.url("/missing")).length).toBe(3);
    expect(first.detail.skipped_links).toBe(1);
    expect(first.detail.broken_links).toBeGreaterThan(0);
  });

  test("totals: check's summary equals the crawl detail", () => {
    const { detail } = first;
    expect(exitCode).toBe(1); // something is broken
    expect(report.options).toMatchObject(ALL_ON);
    expect(report.options).toEqual(detail.options);
    const pick = (o: any) => ({
      status: o.status,
      error: o.error,
      total_links: o.total_links,
      broken_links: o.broken_links,
      pages_crawled: o.pages_crawled,
      skipped_links: o.skipped_links,
      truncated: o.truncated,
    });
    expect(pick(report.summary)).toEqual(pick(detail));
    // Any further field both carry (failure, warnings, pages_cut, …) agrees too; times and durations are not compared.
    const shared = Object.keys(report.summary).filter((key) => key in detail && !/_at$|duration/.test(key));
    expect(Object.fromEntries(shared.map((key) => [key, report.summary[key]]))).toEqual(Object.fromEntries(shared.map((key) => [key, detail[key]])));
    expect(report.summary.reported_links).toBe(detail.total_links);
    expect(report.summary.reported_broken).toBe(detail.broken_links);
    expect(report.links.length).toBe(report.summary.total_links);
  });

  test("links: check's list equals GET /links, as multisets of every compared field", () => {
    expect(multiset(report.links)).toEqual(multiset(first.links));
  });

  test("broken: check's broken subset equals GET /broken", () => {
    expect(
      multiset(
        report.links.filter((link: any) => link.is_broken),
        BROKEN_FIELDS,
      ),
    ).toEqual(multiset(first.broken, BROKEN_FIELDS));
  });

  test("the first crawl of the domain: every broken link is new", async () => {
    expect(first.detail.new_broken_links).toBe(first.detail.broken_links);
    const changes = await readAll(svc, `/crawls/${firstId}/changes`);
    const meta = (await svc.call("GET", `/crawls/${firstId}/changes`)).json.meta;
    expect(meta).toMatchObject({ against_crawl_id: null, total: first.detail.broken_links, new_broken: first.detail.broken_links, fixed: 0 });
    expect(changes.every((item) => item.change === "new_broken")).toBe(true);
    expect(multiset(changes)).toEqual(multiset(first.broken.map((link: any) => ({ ...link, is_broken: true }))));
  });

  test("the second crawl: /changes lists exactly the link fixed and the link newly broken, and the detail agrees", async () => {
    const changes = await readAll(svc, `/crawls/${secondId}/changes`);
    const meta = (await svc.call("GET", `/crawls/${secondId}/changes`)).json.meta;
    expect(meta).toMatchObject({ against_crawl_id: firstId, total: 2, new_broken: 1, fixed: 1 });
    expect(second.detail.new_broken_links).toBe(1);
    expect(
      changes.map((item) => ({ change: item.change, url: item.url, source_url: item.source_url, status_code: item.status_code, is_broken: item.is_broken })),
    ).toEqual([
      { change: "new_broken", url: site.url("/flaky"), source_url: site.url("/docs"), status_code: 410, is_broken: true },
      // As it was when it was last broken.
      { change: "fixed", url: site.url("/fixme"), source_url: site.url("/about"), status_code: 404, is_broken: true },
    ]);
    // And the two crawls' broken lists differ by exactly those two links.
    const key = (link: any) => `${link.source_url} → ${link.url}`;
    const before = new Set(first.broken.map(key));
    const after = new Set(second.broken.map(key));
    expect([...after].filter((k) => !before.has(k))).toEqual([`${site.url("/docs")} → ${site.url("/flaky")}`]);
    expect([...before].filter((k) => !after.has(k))).toEqual([`${site.url("/about")} → ${site.url("/fixme")}`]);
    expect(second.detail.broken_links).toBe(first.detail.broken_links);
  });

  test("no delivery failed its signature check, and no crawl.failed was sent", () => {
    expect(receiver.requests.length).toBeGreaterThanOrEqual(6);
    expect(receiver.requests.filter((request) => !request.verified)).toEqual([]);
    expect(receiver.requests.filter((request) => request.headers["x-service-event"] === "crawl.failed")).toEqual([]);
  });
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * GET /metrics after real work: a crawl (in a worker thread) with a broken page and a refused connection, its
 * webhook deliveries to a real receiver, and API requests. The numbers must match what happened, the route
 * label must be the pattern (never an id), and access follows metrics.port: a scope on the API port, or a
 * listener of its own.
 */

let svc: TestService;
let site: LoopbackSite;
let receiver: WebhookReceiver;
let crawl: any;
let closedPort: number;

/** Value of one series, e.g. sample(text, 'linkpatrol_crawls{state="completed"}'); undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  const placeholder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  closedPort = placeholder.port!;
  placeholder.stop(true);
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
  site = await startLoopbackSite({
    "/": { body: `<a href="/a">a</a> <a href="/gone">gone</a> <a href="http://127.0.0.1:${closedPort}/x">refused</a>` },
    "/a": { body: "<a href='/'>home</a>" },
  });
  receiver = await startWebhookReceiver({ tls: false });
  const hook = (await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl() } })).json.data;
  receiver.useSecret(hook.secret);
  const domainId = await verifiedDomain(svc, site.url("/"));
  crawl = await waitForCrawl(svc, await startCrawl(svc, domainId, { follow_external: true }));
  await receiver.waitFor((requests) => requests.length === 3, 10_000);
  // The dispatcher counts an attempt once it is recorded, just after the receiver answered.
  for (let i = 0; i < 100 && (await svc.call("GET", `/webhooks/${hook.id}/deliveries`)).json.data.some((d: any) => d.state !== "delivered"); i++) {
    await Bun.sleep(20);
  }
}, 30_000); // a crawl in a worker thread and its deliveries: over bun's 5 s on a loaded machine
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
  await receiver?.stop();
});

test("the metrics match the crawl, the deliveries and the requests that happened", async () => {
  expect(crawl).toMatchObject({ status: "completed", pages_crawled: 2, total_links: 4, broken_links: 2 });
  for (let i = 0; i < 3; i++) expect((await svc.call("GET", `/crawls/${crawl.id}`)).status).toBe(200);
  expect((await svc.call("GET", "/no-such-route")).status).toBe(404);

  const res = await svc.call("GET", "/metrics", { root: true });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = res.text;
  expect(sample(text, 'linkpatrol_crawls{state="completed"}')).toBe(1);
  expect(sample(text, 'linkpatrol_crawls{state="running"}')).toBe(0);
  expect(sample(text, "linkpatrol_pages_crawled_total")).toBe(2);
  // Targets: /, /a, /gone and the refused external URL.
  expect(sample(text, "linkpatrol_links_checked_total")).toBe(4);
  expect(sample(text, 'linkpatrol_fetch_errors_total{kind="refused"}')).toBe(1);
  expect(sample(text, 'linkpatrol_webhook_attempts_total{outcome="delivered"}')).toBe(3);
  expect(sample(text, 'linkpatrol_webhook_deliveries{state="delivered"}')).toBe(3);
  expect(sample(text, 'linkpatrol_http_request_duration_seconds_count{route="/v1/crawls/:id",method="GET",status="200"}')).toBeGreaterThanOrEqual(3);
  expect(sample(text, 'linkpatrol_http_request_duration_seconds_bucket{route="/v1/crawls/:id",method="GET",status="200",le="+Inf"}')).toBeGreaterThanOrEqual(3);
  expect(sample(text, 'linkpatrol_http_request_duration_seconds_count{route="unmatched",method="GET",status="404"}')).toBe(1);
  expect(text).not.toContain(crawl.id);
  expect(text).toMatch(/^# TYPE linkpatrol_http_request_duration_seconds histogram$/m);
  const health = (await svc.call("GET", "/healthz", { root: true })).json;
  expect(sample(text, `linkpatrol_build_info{version="${health.version}",node="${hostname()}"}`)).toBe(1);
});

test("every scrape is rendered anew: requests between two scrapes in the same second show, though the store did not change", async () => {
  const series = 'linkpatrol_http_request_duration_seconds_count{route="/v1/crawls/:id",method="GET",status="200"}';
  const before = sample((await svc.call("GET", "/metrics", { root: true })).text, series)!;
  for (let i = 0; i < 2; i++) expect((await svc.call("GET", `/crawls/${crawl.id}`)).status).toBe(200);
  const after = sample((await svc.call("GET", "/metrics", { root: true })).text, series);
  expect(after).toBe(before + 2);
});

test("/metrics on the API port needs a key with metrics:read (or admin)", async () => {
  expect((await svc.call("GET", "/metrics", { root: true, key: null })).status).toBe(401);
  const forbidden = await svc.call("GET", "/metrics", { root: true, key: await svc.keyWith("crawls:read") });
  expect(forbidden.status).toBe(403);
  expect(forbidden.json.error.code).toBe("forbidden");
  expect((await svc.call("GET", "/metrics", { root: true, key: await svc.keyWith("metrics:read") })).status).toBe(200);
});

test("with metrics.port set, /metrics is served there without a key and no longer on the API port", async () => {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-metrics-"));
  const key = `lp_${"M".repeat(40)}`;
  const server = startServeProcess(writeServeConfig(dir, key, ["metrics: {port: 0, host: 127.0.0.1}"]));
  try {
    const base = await server.ready;
    const port = (await server.stderr.waitFor(/"msg":"metrics listening".*?"port":(\d+)/))[1];
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('linkpatrol_crawls{state="pending"} 0');
    expect((await fetch(`http://127.0.0.1:${port}/v1/domains`, { signal: AbortSignal.timeout(5_000) })).status).toBe(404);
    const onApi = await fetch(`${base.replace(/\/v1$/, "")}/metrics`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(5_000),
    });
    expect(onApi.status).toBe(404);
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

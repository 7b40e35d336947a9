import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * A slow receiver holds back only its own deliveries: another webhook's deliveries of the same events arrive
 * at once, and the crawl itself never waits for webhooks.
 */

let svc: TestService;
let site: LoopbackSite;
let slow: WebhookReceiver;
let fast: WebhookReceiver;
let crawl: any;

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/missing'>missing</a>" } });
  slow = await startWebhookReceiver({ tls: false });
  fast = await startWebhookReceiver({ tls: false });
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true, timeout: "60s" } });
  for (const receiver of [slow, fast]) {
    const res = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl("/hook") } });
    receiver.useSecret(res.json.data.secret);
  }
  slow.script({ delayMs: 30_000 }, { delayMs: 30_000 }, { delayMs: 30_000 });
  crawl = await waitForCrawl(svc, await startCrawl(svc, await verifiedDomain(svc, site.url("/"))));
});
afterAll(async () => {
  // The slow receiver first: its held answer would otherwise keep svc.stop() waiting on the attempt.
  await slow?.stop();
  await svc?.stop();
  await Promise.all([fast?.stop(), site?.stop()]);
});

test("the fast receiver gets all three events while the slow one is still answering its first", async () => {
  expect(crawl.status).toBe("completed");
  await fast.waitFor((requests) => requests.length === 3, 3_000);
  expect(fast.requests.map((r) => r.headers["x-service-event"]).sort()).toEqual(["broken_links.found", "crawl.completed", "crawl.started"]);
  expect(slow.requests.length).toBe(1); // one attempt per webhook at a time
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";
import { startDashboardFixture, type DashboardFixture } from "./fixture.ts";

/** Webhook pages: create (the secret shown once), send a test and read its result, the delivery log, redeliver. */

let fx: DashboardFixture;
let client: DashboardClient;
beforeAll(async () => {
  fx = await startDashboardFixture();
  client = await signedInClient(fx.svc);
}, 30_000); // a crawl of the loopback site and its webhook deliveries
afterAll(() => fx.stop());

/**
 * The crawl's deliveries once none is pending and the receiver has seen (at least) every attempt the store recorded.
 * Deliveries written by crawl workers reach the dispatcher on its poll, so a crawl can end well before they
 * are sent: counting the receiver's requests before that would count them as the redelivery's.
 */
async function settledDeliveries() {
  const deadline = Date.now() + 8_000;
  while (Date.now() < deadline) {
    const deliveries = (await fx.svc.runtime.webhooks.deliveries(fx.webhookId, 1, 20)).items;
    const attempts = deliveries.reduce((sum, d) => sum + d.attempts.length, 0);
    const received = receivedDeliveries().filter(([event]) => event !== "webhook.test").length;
    if (deliveries.length > 0 && deliveries.every((d) => d.state !== "pending") && received >= attempts) return deliveries;
    await Bun.sleep(50);
  }
  throw new Error("the crawl's deliveries did not settle within 8 s");
}

/** Every request the receiver got, as [event, delivery id] from the headers every delivery carries. */
function receivedDeliveries(): [string, string][] {
  return fx.receiver.requestHeaders.map((h) => [h["x-service-event"] ?? "?", h["x-service-delivery"] ?? "?"]);
}

describe("webhook pages", () => {
  test("creating one shows its secret once; the list never shows it again", async () => {
    const answer = await client.post("/ui/webhooks", { url: fx.receiver.url("/hook"), name: "second", events: ["crawl.completed", "crawl.failed"] });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const secret = /id="webhook-secret">(whsec_[A-Za-z0-9_-]+)</.exec(answer.html)?.[1];
    expect(secret).toBeDefined();
    const created = (await fx.svc.runtime.webhooks.list()).items.find((w) => w.name === "second")!;
    expect(created.events).toEqual(["crawl.completed", "crawl.failed"]);
    const list = await client.get("/ui/webhooks");
    expect(list.html).toContain("second");
    expect(list.html).not.toContain(secret!);
    expect((await client.get(`/ui/webhooks/${created.id}`)).html).not.toContain(secret!);
  });

  test("a URL the policy refuses is shown back with the reason", async () => {
    const answer = await client.post("/ui/webhooks", { url: "ftp://example.com/hook" });
    expect(answer.status).toBe(422);
    expect(answer.html).toContain("notice error");
  });

  test("send a test and read its result", async () => {
    const answer = await client.post(`/ui/webhooks/${fx.webhookId}/test`);
    expect(answer.status).toBe(200);
    expect(answer.html).toMatch(/id="test-result">Test delivered: HTTP 204 in/);
    expect(fx.receiver.requests).toContain("POST /hook");
  });

  test("the delivery log lists the crawl's events with their attempts, and an ended delivery can be redelivered", async () => {
    const deliveries = await settledDeliveries();
    const page = await client.get(`/ui/webhooks/${fx.webhookId}`);
    expect(page.html).toContain("<code>crawl.started</code>");
    expect(page.html).toContain("<code>crawl.completed</code>");
    expect(page.html).toMatch(/<summary>1 attempt<\/summary>/);
    expect(page.html).toContain("HTTP 204 in");

    const delivery = deliveries.find((d) => d.event === "crawl.completed")!;
    expect(delivery.attempts).toHaveLength(1);
    const before = receivedDeliveries().length;
    const redelivered = await client.post(`/ui/webhooks/${fx.webhookId}/deliveries/${delivery.id}/redeliver`);
    expect(redelivered.status).toBe(303);
    expect(redelivered.location).toBe(`/ui/webhooks/${fx.webhookId}?notice=redelivered`);
    const after = await settledDeliveries();
    expect(after.find((d) => d.id === delivery.id)!.attempts).toHaveLength(2);
    // Exactly one new request, and it is the redelivered delivery under its own id.
    expect(receivedDeliveries().slice(before)).toEqual([["crawl.completed", delivery.id]]);
  }, 20_000);

  test("deleting asks first (with the script) and removes the webhook", async () => {
    const hook = (await fx.svc.runtime.webhooks.list()).items.find((w) => w.name === "second")!;
    const page = await client.get(`/ui/webhooks/${hook.id}`);
    expect(page.html).toContain('data-confirm="Delete this webhook');
    const deleted = await client.post(`/ui/webhooks/${hook.id}/delete`);
    expect(deleted.status).toBe(303);
    expect((await fx.svc.runtime.webhooks.list()).items.some((w) => w.id === hook.id)).toBe(false);
  });
});

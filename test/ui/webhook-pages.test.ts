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

async function endedDelivery(): Promise<{ id: string; state: string }> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ended = fx.svc.runtime.webhooks.deliveries(fx.webhookId, 1, 20).items.find((d) => d.state !== "pending");
    if (ended !== undefined) return ended;
    await Bun.sleep(50);
  }
  throw new Error("no ended delivery within 10 s");
}

describe("webhook pages", () => {
  test("creating one shows its secret once; the list never shows it again", async () => {
    const answer = await client.post("/ui/webhooks", { url: fx.receiver.url("/hook"), name: "second", events: ["crawl.completed", "crawl.failed"] });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const secret = /id="webhook-secret">(whsec_[A-Za-z0-9_-]+)</.exec(answer.html)?.[1];
    expect(secret).toBeDefined();
    const created = fx.svc.runtime.webhooks.list().items.find((w) => w.name === "second")!;
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
    const delivery = await endedDelivery();
    const page = await client.get(`/ui/webhooks/${fx.webhookId}`);
    expect(page.html).toContain("<code>crawl.started</code>");
    expect(page.html).toContain("<code>crawl.completed</code>");
    expect(page.html).toMatch(/<summary>1 attempt<\/summary>/);
    expect(page.html).toContain("HTTP 204 in");
    const before = fx.receiver.requests.length;
    const redelivered = await client.post(`/ui/webhooks/${fx.webhookId}/deliveries/${delivery.id}/redeliver`);
    expect(redelivered.status).toBe(303);
    expect(redelivered.location).toBe(`/ui/webhooks/${fx.webhookId}?notice=redelivered`);
    const deadline = Date.now() + 10_000;
    while (fx.receiver.requests.length === before && Date.now() < deadline) await Bun.sleep(50);
    expect(fx.receiver.requests.length).toBe(before + 1);
  });

  test("deleting asks first (with the script) and removes the webhook", async () => {
    const hook = fx.svc.runtime.webhooks.list().items.find((w) => w.name === "second")!;
    const page = await client.get(`/ui/webhooks/${hook.id}`);
    expect(page.html).toContain('data-confirm="Delete this webhook');
    const deleted = await client.post(`/ui/webhooks/${hook.id}/delete`);
    expect(deleted.status).toBe(303);
    expect(fx.svc.runtime.webhooks.list().items.some((w) => w.id === hook.id)).toBe(false);
  });
});

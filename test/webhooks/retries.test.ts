import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Delivery under failure, with a short retry schedule (1 s steps): failures of every kind are retried with the
 * same delivery id and a fresh signature each time; a receiver that was down gets the delivery once it is up;
 * the schedule running out makes the delivery dead, and a dead delivery can be redelivered; 410 Gone switches
 * the webhook off. One crawl's crawl.completed goes to four webhooks at once, each with its own receiver.
 */

const SCHEDULE = ["1s", "1s", "1s", "1s"];

let svc: TestService;
let site: LoopbackSite;
const receivers: WebhookReceiver[] = [];
let flaky: WebhookReceiver;
let failing: WebhookReceiver;
let gone: WebhookReceiver;
let late: WebhookReceiver | undefined;
let latePort: number;
const hooks: Record<string, { id: string; secret: string }> = {};

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver({ tls: false });
  receivers.push(started);
  return started;
}

async function createWebhook(name: string, url: string): Promise<{ id: string; secret: string }> {
  const res = await svc.call("POST", "/webhooks", { body: { url, name, events: ["crawl.completed"] } });
  expect(res.status).toBe(201);
  hooks[name] = { id: res.json.data.id, secret: res.json.data.secret };
  return hooks[name]!;
}

async function deliveries(name: string): Promise<any[]> {
  const res = await svc.call("GET", `/webhooks/${hooks[name]!.id}/deliveries`);
  expect(res.status).toBe(200);
  return res.json.data;
}

/** Polls the deliveries log until `predicate` holds (bounded). */
async function waitForDeliveries(name: string, predicate: (list: any[]) => boolean, timeoutMs = 15_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const list = await deliveries(name);
    if (predicate(list)) return list;
    await Bun.sleep(100);
  }
  throw new Error(`deliveries of ${name}: condition not met within ${timeoutMs} ms: ${JSON.stringify(await deliveries(name))}`);
}

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/x'>x</a>" }, "/x": { body: "ok" } });
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true, retry_schedule: SCHEDULE, timeout: "1s" } });
  flaky = await receiver();
  failing = await receiver();
  gone = await receiver();
  const placeholder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  latePort = placeholder.port!;
  placeholder.stop(true);

  flaky.useSecret((await createWebhook("flaky", flaky.ipUrl("/hook"))).secret);
  failing.useSecret((await createWebhook("failing", failing.ipUrl("/hook"))).secret);
  gone.useSecret((await createWebhook("gone", gone.ipUrl("/hook"))).secret);
  await createWebhook("late", `http://127.0.0.1:${latePort}/hook`);

  flaky.script({ status: 500 }, { delayMs: 1_500 }, { status: 302, location: "/elsewhere" });
  failing.script(...Array.from({ length: SCHEDULE.length + 1 }, () => ({ status: 503 })));
  gone.script({ status: 410 });

  const crawlId = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  await waitForCrawl(svc, crawlId);
});
afterAll(async () => {
  await svc?.stop();
  await Promise.all([...receivers.map((r) => r.stop()), late?.stop(), site?.stop()]);
});

describe("retries", () => {
  test("a receiver that was down gets the delivery once it is up, under the same delivery id", async () => {
    const [first] = await waitForDeliveries("late", (list) => list[0]?.attempts.length >= 1);
    expect(first.attempts[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(first.attempts[0].error).toMatch(/refused/);
    late = await startWebhookReceiver({ tls: false, port: latePort, secret: hooks.late!.secret });
    const [delivered] = await waitForDeliveries("late", (list) => list[0]?.state === "delivered");
    expect(delivered.id).toBe(first.id);
    expect(late.requests).toHaveLength(1);
    expect(late.requests[0]!.verified).toBe(true);
    expect(late.requests[0]!.headers["x-service-delivery"]).toBe(first.id);
  }, 10_000); // waits for a retry 1 s after the refused attempt
  test("500, a timeout and a redirect are retried on schedule; the fourth attempt delivers, same delivery id throughout", async () => {
    const [delivery] = await waitForDeliveries("flaky", (list) => list[0]?.state === "delivered");
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, null, 302, 200]);
    expect(delivery.attempts[1].error).toMatch(/timed out/);
    expect(delivery.attempts[2].error).toMatch(/redirect/i);
    expect(delivery.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4]);

    const seen = flaky.requests.filter((r) => r.path === "/hook");
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((r) => r.headers["x-service-delivery"]))).toEqual(new Set([delivery.id]));
    expect(seen.every((r) => r.verified)).toBe(true);
    expect(new Set(seen.map((r) => r.rawBody.toString())).size).toBe(1); // the same bytes every time
    // Signed afresh: each attempt carries its own time, never earlier than the one before.
    const times = seen.map((r) => r.signedAt!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(3);
    // Attempts follow the schedule (1 s ± 10 %), they are not hammered.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.receivedAt - seen[i - 1]!.receivedAt).toBeGreaterThanOrEqual(850);
    expect(flaky.requests.some((r) => r.path === "/elsewhere")).toBe(false);
  }, 20_000); // waits through the retry schedule (1 s steps, a 1 s timeout)
});

describe("dead deliveries and redelivery", () => {
  test("after the schedule runs out the delivery is dead; redeliver queues it again and it is delivered", async () => {
    const [dead] = await waitForDeliveries("failing", (list) => list[0]?.state === "dead", 20_000);
    expect(dead.attempts).toHaveLength(SCHEDULE.length + 1);
    expect(dead.attempts.every((a: any) => a.status_code === 503)).toBe(true);
    expect(dead).toMatchObject({ next_attempt_at: null, last_status_code: 503 });

    const res = await svc.call("POST", `/webhooks/${hooks.failing!.id}/deliveries/${dead.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: dead.id, state: "pending" });

    const [delivered] = await waitForDeliveries("failing", (list) => list[0]?.state === "delivered");
    expect(delivered.attempts).toHaveLength(SCHEDULE.length + 2);
    expect(delivered.attempts.at(-1)).toMatchObject({ attempt: SCHEDULE.length + 2, status_code: 200 });
    const ids = new Set(failing.requests.map((r) => r.headers["x-service-delivery"]));
    expect(ids).toEqual(new Set([dead.id]));
  }, 20_000); // waits through the whole retry schedule (1 s steps)
});

describe("410 Gone", () => {
  test("switches the webhook off at once: its delivery is dead and it gets no new events", async () => {
    const [delivery] = await waitForDeliveries("gone", (list) => list[0]?.state === "dead");
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0].status_code).toBe(410);
    const list = (await svc.call("GET", "/webhooks")).json.data;
    expect(list.find((hook: any) => hook.id === hooks.gone!.id)).toMatchObject({ active: false, disabled_reason: "the endpoint answered 410 Gone" });

    const crawlId = await startCrawl(svc, await verifiedDomain(svc, `${site.origin.replace("127.0.0.1", "localhost")}/`));
    await waitForCrawl(svc, crawlId);
    await waitForDeliveries("flaky", (deliveries) => deliveries.length === 2 && deliveries.every((d) => d.state === "delivered"));
    expect(await deliveries("gone")).toHaveLength(1);
    expect(gone.requests).toHaveLength(1);
  }, 20_000); // waits for another webhook's delivery, which goes through the retry schedule
});

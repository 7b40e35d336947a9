import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * A webhook that has had nothing but failures for `webhooks.disable_after` (default 5 days) is switched off at
 * its next failure; one success resets the clock. Five days cannot pass in a test, so the stored start of the
 * failure streak is moved back in time, which is exactly what the dispatcher reads.
 */

let svc: TestService;
let site: LoopbackSite;
let healthy: WebhookReceiver;
let broken: WebhookReceiver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<p>no links</p>" } });
  healthy = await startWebhookReceiver({ tls: false });
  broken = await startWebhookReceiver({ tls: false });
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true, retry_schedule: ["1s"] } });
  for (const [name, receiver] of [
    ["healthy", healthy],
    ["broken", broken],
  ] as const) {
    const res = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl("/hook"), events: ["crawl.completed"] } });
    ids[name] = res.json.data.id;
    receiver.useSecret(res.json.data.secret);
  }
  broken.script({ status: 500 }, { status: 500 });
  const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
  // Both have been failing for six days; the healthy one is about to succeed.
  svc.runtime.store.sqlite!.query("UPDATE webhooks SET failing_since = ?").run(sixDaysAgo);
  await waitForCrawl(svc, await startCrawl(svc, await verifiedDomain(svc, site.url("/"))));
  await healthy.waitFor((requests) => requests.length === 1, 10_000);
  await broken.waitFor((requests) => requests.length === 1, 10_000);
  // The dispatcher records each attempt (and switches the broken webhook off) just after the receiver answered.
  const state = async (name: string) => (await svc.call("GET", `/webhooks/${ids[name]}/deliveries`)).json.data[0]?.state;
  for (let i = 0; i < 150 && ((await state("broken")) !== "dead" || (await state("healthy")) !== "delivered"); i++) await Bun.sleep(20);
}, 30_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all([healthy?.stop(), broken?.stop(), site?.stop()]);
});

const webhook = async (name: string) => (await svc.call("GET", "/webhooks")).json.data.find((hook: any) => hook.id === ids[name]);

test("a failure after five days of failures switches the webhook off and kills its pending delivery", async () => {
  expect(await webhook("broken")).toMatchObject({ active: false });
  expect((await webhook("broken")).disabled_reason).toMatch(/^every attempt failed since /);
  const [delivery] = (await svc.call("GET", `/webhooks/${ids.broken}/deliveries`)).json.data;
  expect(delivery.state).toBe("dead");
  expect(delivery.last_error).toMatch(/^webhook disabled: every attempt failed since /);
  await Bun.sleep(1_500);
  expect(broken.requests).toHaveLength(1); // the scheduled retry was not sent
});

test("a success resets the streak: the healthy webhook stays active", async () => {
  expect(await webhook("healthy")).toMatchObject({ active: true, disabled_reason: null });
  const row = svc.runtime.store.sqlite!.query("SELECT failing_since FROM webhooks WHERE id = ?").get(ids.healthy!) as { failing_since: string | null };
  expect(row.failing_since).toBeNull();
});

test("switching the webhook back on (PATCH active: true) clears the reason; its dead delivery can then be redelivered", async () => {
  const res = await svc.call("PATCH", `/webhooks/${ids.broken}`, { body: { active: true } });
  expect(res.status).toBe(200);
  expect(res.json.data).toMatchObject({ id: ids.broken, active: true, disabled_reason: null });
  const [dead] = (await svc.call("GET", `/webhooks/${ids.broken}/deliveries`)).json.data;
  expect((await svc.call("POST", `/webhooks/${ids.broken}/deliveries/${dead.id}/redeliver`)).status).toBe(200);
  await broken.waitFor((requests) => requests.length === 2, 10_000);
  expect(broken.requests[1]!.headers["x-service-delivery"]).toBe(dead.id);
  expect(broken.requests[1]!.answeredStatus).toBe(500); // the second scripted failure
});

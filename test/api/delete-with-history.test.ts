import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Deleting a resource that has rows hanging off it (a webhook with deliveries and attempts, a domain with
 * crawls) answers like deleting a bare one: 204 with no body, then 404. bun:sqlite's `changes` counts the rows
 * ON DELETE CASCADE removes too, so "exactly one row deleted" is not how existence may be decided.
 */

let svc: TestService;
let receiver: WebhookReceiver;
let site: LoopbackSite;
let domainId: string;
let crawlId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ tls: false });
  site = await startLoopbackSite({ "/": { body: "<a href='/a'>a</a> <a href='/gone'>gone</a>" }, "/a": { body: "<a href='/'>home</a>" } });
  svc = await startTestService({
    webhooks: { allow_http: true, allow_private_targets: true, retry_schedule: ["1s", "1s", "1s"] },
    storage: { retention: { max_age: null, keep_last: null } },
  });
  domainId = await verifiedDomain(svc, site.url("/"));
});
afterAll(async () => {
  await svc?.stop();
  await receiver?.stop();
  await site?.stop();
});

const rowCount = (sql: string, ...params: string[]) => (svc.runtime.store.sqlite!.query(sql).get(...params) as { n: number }).n;

describe("DELETE /webhooks/{id}", () => {
  test("a webhook with delivered, retried and test-sent history: 204 with no body, then 404; its deliveries go with it", async () => {
    const created = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl("/hook"), name: "with history" } });
    expect(created.status).toBe(201);
    const hook = created.json.data;
    receiver.useSecret(hook.secret);

    const sent = await svc.call("POST", `/webhooks/${hook.id}/test`);
    expect(sent.status).toBe(200);
    expect(sent.json.data).toMatchObject({ delivered: true, status_code: 200 });

    // The crawl's three events are stored and sent; the first one sent fails once and is retried.
    receiver.script({ status: 500 });
    crawlId = await startCrawl(svc, domainId);
    expect((await waitForCrawl(svc, crawlId)).status).toBe("completed");
    let deliveries: any[] = [];
    for (let i = 0; i < 200; i++) {
      deliveries = (await svc.call("GET", `/webhooks/${hook.id}/deliveries`)).json.data;
      if (deliveries.length === 3 && deliveries.every((d) => d.state === "delivered")) break;
      await Bun.sleep(50);
    }
    expect(deliveries.map((d) => d.state)).toEqual(["delivered", "delivered", "delivered"]);
    const attempts = deliveries.flatMap((d) => d.attempts.map((a: any) => a.status_code)).sort();
    expect(attempts).toEqual([200, 200, 200, 500]);
    const ids = deliveries.map((d) => d.id);
    const attemptsOf = () => rowCount(`SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (${ids.map(() => "?").join(", ")})`, ...ids);
    expect(attemptsOf()).toBe(4);

    const removed = await svc.call("DELETE", `/webhooks/${hook.id}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expectErrorEnvelope(await svc.call("DELETE", `/webhooks/${hook.id}`), 404, "not_found");
    expect((await svc.call("GET", "/webhooks")).json.data.some((listed: any) => listed.id === hook.id)).toBe(false);
    expectErrorEnvelope(await svc.call("GET", `/webhooks/${hook.id}/deliveries`), 404, "not_found");
    expect(rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?", hook.id)).toBe(0);
    expect(attemptsOf()).toBe(0);
  });
});

describe("DELETE /domains/{id}", () => {
  test("a domain with a crawl and its links: 204 with no body, then 404; the crawl goes with it", async () => {
    expect(rowCount("SELECT count(*) AS n FROM links WHERE crawl_id = ?", crawlId)).toBe(3);
    const removed = await svc.call("DELETE", `/domains/${domainId}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expectErrorEnvelope(await svc.call("DELETE", `/domains/${domainId}`), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", `/domains/${domainId}`), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", `/crawls/${crawlId}`), 404, "not_found");
    expect(rowCount("SELECT count(*) AS n FROM links WHERE crawl_id = ?", crawlId)).toBe(0);
  });
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { RetentionPruner } from "../../src/services/retention.ts";
import { RetentionRepo } from "../../src/store/retention.repo.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Old ended deliveries are pruned chunk after chunk until none is left, and counted one per delivery: the
 * attempts that go with each delivery (ON DELETE CASCADE, which bun:sqlite's `changes` also counts) neither
 * inflate the count nor end the run after the first chunk.
 */

const DAY_MS = 86_400_000;
let svc: TestService;
let receiver: WebhookReceiver;
let site: LoopbackSite;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ tls: false });
  site = await startLoopbackSite({ "/": { body: "<a href='/gone'>gone</a>" } });
  svc = await startTestService({
    webhooks: { allow_http: true, allow_private_targets: true },
    storage: { retention: { max_age: null, keep_last: null } },
  });
});
afterAll(async () => {
  await svc?.stop();
  await receiver?.stop();
  await site?.stop();
});

test("every old delivery goes in one run, counted once however many attempts it had", async () => {
  const hook = (await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl() } })).json.data;
  receiver.useSecret(hook.secret);
  const crawlId = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  expect((await waitForCrawl(svc, crawlId)).status).toBe("completed");
  await receiver.waitFor((requests) => requests.length === 3, 10_000);
  const sqlite = svc.runtime.store.sqlite!;
  const count = (sql: string) => (sqlite.query(sql).get() as { n: number }).n;
  for (let i = 0; i < 100 && count("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'delivered'") !== 3; i++) await Bun.sleep(20);
  expect(count("SELECT count(*) AS n FROM webhook_attempts")).toBe(3);
  // The deliveries are old; the crawl is not, so only the delivery pass can remove them.
  sqlite.query("UPDATE webhook_deliveries SET created_at = ?").run(new Date(Date.now() - 40 * DAY_MS).toISOString());

  const pruner = new RetentionPruner({
    repo: new RetentionRepo(svc.runtime.store.db),
    settings: { maxAgeMs: 30 * DAY_MS, keepLast: null, intervalMs: DAY_MS },
    logger: createLogger("error"),
    chunkRows: 2,
  });
  const report = await pruner.run();
  expect(report.deliveries).toBe(3);
  expect(count("SELECT count(*) AS n FROM webhook_deliveries")).toBe(0);
  expect(count("SELECT count(*) AS n FROM webhook_attempts")).toBe(0);
  expect((await svc.call("GET", `/crawls/${crawlId}`)).status).toBe(200);
});

import { afterAll, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startChatReceiver, type ChatReceiver } from "../helpers/chat-receiver.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Channel deliveries share the outbox, and so its pause while the store's file is lost (deleted, moved or
 * replaced under the service): a digest read from a file that is gone would tell of what the store no longer
 * holds. The file moved back, the digest goes out.
 */

let svc: TestService | undefined;
let chat: ChatReceiver | undefined;
let site: LoopbackSite | undefined;
afterAll(async () => {
  await svc?.stop();
  await chat?.stop();
  await site?.stop();
});

test("a digest queued before the store file was moved away is sent only once the file is back", async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/gone'>gone</a>" }, "/gone": { status: 404, body: "gone" } });
  chat = await startChatReceiver();
  svc = await startTestService({ notifications: { allow_http: true, allow_private_targets: true } });
  const domainId = await verifiedDomain(svc, site.url("/"));
  const channel = await svc.call("POST", "/channels", { body: { kind: "slack", name: "team", url: chat.url("/services/T/B/x"), notify_when: "always" } });
  expect(channel.status).toBe(201);
  // The digest waits in the outbox while the file is moved away.
  await svc.runtime.dispatcher.stop();
  await waitForCrawl(svc, await startCrawl(svc, domainId));
  const path = svc.config.storage.path;
  renameSync(path, `${path}.away`);
  try {
    svc.runtime.dispatcher.start();
    await Bun.sleep(2_500); // two polls of the outbox
    expect(chat.requests).toHaveLength(0);
  } finally {
    renameSync(`${path}.away`, path);
  }
  const [request] = await chat.waitFor(1, 10_000);
  expect(JSON.stringify(request!.json)).toContain("1 new broken link");
}, 30_000);

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startChatReceiver, type ChatReceiver } from "../helpers/chat-receiver.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HOSTILE_TEXTS, startHostileSite } from "../notifications/hostile-site.ts";
import { HAS_CHROMIUM, launchChromium } from "../helpers/chromium.ts";

/**
 * Notification channels in a real browser (Debian's headless Chromium through playwright-core, as
 * browser.test.ts): create a Slack channel from the form, send a test and read the result, see a crawl's digest
 * in the delivery log with its hostile link texts shown as text (no dialog, no injected element), delete it.
 */

const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");
const available = HAS_CHROMIUM;
const STEP_MS = 20_000;

let svc: TestService;
let chat: ChatReceiver;
let site: LoopbackSite;
let browser: Browser;
let page: Page;
let domainId = "";
const dialogs: string[] = [];

async function waitForText(selector: string, text: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (
      (
        (await page
          .locator(selector)
          .first()
          .textContent()
          .catch(() => "")) ?? ""
      ).includes(text)
    )
      return;
    await Bun.sleep(50);
  }
  throw new Error(`"${text}" not in ${selector} within 5 s`);
}

beforeAll(async () => {
  if (!available) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  chat = await startChatReceiver();
  site = await startHostileSite();
  svc = await startTestService({ notifications: { allow_http: true, allow_private_targets: true } });
  domainId = await verifiedDomain(svc, site.url("/"));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on("dialog", (dialog) => {
    if (dialog.type() === "confirm") return void dialog.accept();
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
}, 30_000); // starting Chromium

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await svc?.stop();
  await chat?.stop();
  await site?.stop();
});

describe.skipIf(!available)("notification channels in Chromium", () => {
  let channelUrl = "";

  test(
    "sign in, then create a Slack channel from the form",
    async () => {
      await page.goto(`${svc.origin}/ui/sign-in`);
      await page.getByLabel("API key").fill(svc.adminKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${svc.origin}/`);
      await page.getByRole("link", { name: "Notifications" }).click();
      await page.waitForURL(`${svc.origin}/ui/channels`);
      await page.getByRole("link", { name: "Slack" }).click();
      await page.getByLabel("Name").fill("team chat");
      await page.getByLabel("Incoming webhook URL").fill(chat.url("/services/T/B/browsersecret"));
      await page.getByLabel("after every crawl").check();
      await page.getByRole("button", { name: "Add channel" }).click();
      await page.waitForURL(/\/ui\/channels\/[0-9a-f-]+\?notice=created$/);
      channelUrl = page.url().split("?")[0]!;
      await waitForText("main", "Channel created.");
      expect(await page.locator("main").textContent()).not.toContain("browsersecret");
    },
    STEP_MS,
  );

  test(
    "Send test shows the result",
    async () => {
      await page.getByRole("button", { name: "Send test" }).click();
      await waitForText("#test-result", "Test delivered: HTTP 200");
      expect(chat.requests).toHaveLength(1);
      await page.screenshot({ path: join(ARTIFACTS, "channel-test.png"), fullPage: true });
    },
    STEP_MS,
  );

  test(
    "a crawl's digest is in the delivery log, its hostile link texts shown as text",
    async () => {
      await waitForCrawl(svc, await startCrawl(svc, domainId));
      const channelId = channelUrl.split("/").pop()!;
      for (let i = 0; i < 200 && (await svc.runtime.channels.deliveries(channelId, 1, 1)).items[0]?.state !== "delivered"; i++) await Bun.sleep(50);
      await page.goto(channelUrl);
      await page.locator("details summary", { hasText: "8 new broken links" }).click();
      const preview = (await page.locator("pre.message-preview").textContent())!;
      for (const text of [HOSTILE_TEXTS.script, HOSTILE_TEXTS.img, HOSTILE_TEXTS.marks, HOSTILE_TEXTS.link]) expect(preview).toContain(text);
      expect(await page.locator("main img, main script, main svg").count()).toBe(0);
      expect(dialogs).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, "channel-deliveries.png"), fullPage: true });
    },
    STEP_MS,
  );

  test(
    "delete asks first, then removes the channel",
    async () => {
      await page.getByRole("button", { name: "Delete channel" }).click();
      await page.waitForURL(`${svc.origin}/ui/channels?notice=deleted`);
      await waitForText("main", "Channel deleted.");
      await waitForText("main", "No channel yet.");
    },
    STEP_MS,
  );
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { PAYLOAD_TEXTS } from "./xss-payloads.ts";
import { HAS_CHROMIUM, launchChromium } from "../helpers/chromium.ts";

/**
 * The crawl page's results at scale in Chromium: sort by a column both ways, filter to a dead external host from
 * the host summary, open a target's 60 linking pages and go to their last page, all with hostile link texts on
 * the page and no script of theirs running.
 */

const available = HAS_CHROMIUM;
const STEP_MS = 20_000;
const SOURCES = 60;

let svc: TestService;
let site: LoopbackSite;
let browser: Browser;
let page: Page;
let crawlId = "";
let deadHost = "";
const dialogs: string[] = [];

const escapeHtml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const html = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

beforeAll(async () => {
  if (!available) return;
  svc = await startTestService();
  const gone = await startLoopbackSite({});
  const dead = new URL(gone.url("/")).origin;
  deadHost = new URL(dead).host;
  await gone.stop();
  const hostile = PAYLOAD_TEXTS.map((text, i) => `<a href="/missing-${i}">${escapeHtml(text)}</a>`).join("");
  const routes: Record<string, { body: string }> = {
    "/": html(
      `<a href="/hub">hub</a><a href="${dead}/x1">x1</a><a href="${dead}/x2">x2</a>${hostile}<a href="/q?x=${escapeHtml('"><script>window.__pwned=1</script>')}">\u202Eevil</a>`,
    ),
    "/hub": html(Array.from({ length: SOURCES }, (_, i) => `<a href="/src/${i}">src ${i}</a>`).join("")),
  };
  for (let i = 0; i < SOURCES; i++) routes[`/src/${i}`] = html(`<a href="/target60">${escapeHtml(`<img src=x onerror="window.__pwned=${i}">`)}</a>`);
  site = await startLoopbackSite(routes);
  const domainId = await verifiedDomain(svc, site.url("/"));
  crawlId = await startCrawl(svc, domainId, { follow_external: true });
  await waitForCrawl(svc, crawlId, 60_000);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
}, 90_000);

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await svc?.stop();
  await site?.stop();
});

const rowUrls = () => page.locator("tr.broken-target td:first-child a.url").allTextContents();

describe.skipIf(!available)("results at scale in Chromium", () => {
  test(
    "sign in and sort by link count, both ways",
    async () => {
      await page.goto(`${svc.origin}/ui/sign-in`);
      await page.getByLabel("API key").fill(svc.adminKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${svc.origin}/`);
      await page.goto(`${svc.origin}/ui/crawls/${crawlId}`);
      await page.locator("th a[data-sort=links]").click();
      await page.waitForURL(/sort=links/);
      expect(await page.locator("th[aria-sort]").getAttribute("aria-sort")).toBe("ascending");
      await page.locator("th a[data-sort=links]").click();
      await page.waitForURL(/dir=desc/);
      expect(await page.locator("th[aria-sort]").getAttribute("aria-sort")).toBe("descending");
      expect((await rowUrls())[0]).toBe(site.url("/target60"));
    },
    STEP_MS,
  );

  test(
    "the host summary filters to a dead external host, keeping the sort",
    async () => {
      await page.locator("#hosts a", { hasText: deadHost }).click();
      await page.waitForURL(/host=/);
      expect(page.url()).toContain("sort=links");
      expect((await rowUrls()).sort()).toEqual([`http://${deadHost}/x1`, `http://${deadHost}/x2`]);
      await page.getByRole("link", { name: "all hosts" }).click();
      await page.waitForURL((url) => !url.search.includes("host="));
    },
    STEP_MS,
  );

  test(
    "a target's 60 linking pages: page 1 of 2, then the last page, texts shown as text",
    async () => {
      await page.goto(`${svc.origin}/ui/crawls/${crawlId}?q=target60`);
      await page.getByRole("link", { name: `All ${SOURCES} linking pages` }).click();
      await page.waitForURL(/\/targets\/\d+/);
      expect(await page.locator(".page-position").textContent()).toBe("Page 1 of 2");
      expect(await page.locator("tr.source-row").count()).toBe(50);
      await page.locator("a[rel=last]").click();
      await page.waitForURL(/page=2/);
      expect(await page.locator(".page-position").textContent()).toBe("Page 2 of 2");
      expect(await page.locator("tr.source-row").count()).toBe(SOURCES - 50);
      expect(await page.locator("td.link-text").first().textContent()).toStartWith("<img src=x onerror=");
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    },
    STEP_MS,
  );

  test(
    "the hostile texts of the main table stay text, and no script of theirs ran",
    async () => {
      await page.goto(`${svc.origin}/ui/crawls/${crawlId}?size=200`);
      const texts = await page.locator("tr.broken-target details li div").allTextContents();
      for (const payload of PAYLOAD_TEXTS) expect(texts).toContain(`“${payload}”`);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
    },
    STEP_MS,
  );
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { PAYLOAD_TEXTS } from "./xss-payloads.ts";
import { HAS_CHROMIUM, launchChromium } from "../helpers/chromium.ts";

/**
 * The dashboard in a real browser: Debian's headless Chromium driven by playwright-core (never a downloaded
 * browser). A first-time user's path: sign in, add a loopback site, verify it with the file method, crawl
 * it and watch the progress, read the grouped broken links, filter, export, and see hostile link texts as
 * text. A screenshot of each main page goes to test-artifacts/.
 */

const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");
const available = HAS_CHROMIUM;

const html = (body: string) => `<!doctype html><html><head><title>site</title></head><body>${body}</body></html>`;
const escapeHtml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const SLOW_PAGES = 12;
/** A browser step (navigation, screenshot) on a loaded 2-core machine takes longer than bun's 5 s default. */
const STEP_MS = 20_000;
/** Steps that also wait for a crawl of the slow pages to end. */
const CRAWL_STEP_MS = 45_000;

let dns: TestDnsServer;
let svc: TestService;
let site: LoopbackSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let token = "";
/** Every alert/prompt a page opened: an injected script would show up here. */
const dialogs: string[] = [];

async function shot(name: string): Promise<void> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

beforeAll(async () => {
  if (!available) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  dns = await startDnsServer({});
  svc = await startTestService({ verification: { dns_servers: [dns.address] } }, { resolve: tableResolver({}) });
  const slowLinks = Array.from({ length: SLOW_PAGES }, (_, i) => `<a href="/slow/${i}">slow ${i}</a>`).join(" ");
  const payloadLinks = PAYLOAD_TEXTS.map((text, i) => `<a href="/missing-${i}">${escapeHtml(text)}</a>`).join(" ");
  site = await startLoopbackSite(
    {
      "/": {
        body: html(`<a href="/a">A</a> <a href="/missing">Missing</a> <a href="/gone">Gone</a> <img src="/broken.png" alt=""> ${slowLinks} ${payloadLinks}`),
      },
      "/a": { body: html(`<a href="/missing">Missing again</a> <a href="/">Home</a>`) },
      "/gone": { status: 410, body: "gone" },
      "/.well-known/linkpatrol-verify.txt": () => (token === "" ? new Response("no", { status: 404 }) : new Response(`${token}\n`)),
    },
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        if (!path.startsWith("/slow/")) return new Response("not found", { status: 404 });
        await Bun.sleep(700);
        return new Response(html(`<a href="/">home</a> <a href="/missing">missing from ${path}</a>`), { headers: { "content-type": "text/html" } });
      },
    },
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on("dialog", (dialog) => {
    if (dialog.type() === "confirm") return; // answered by the step that expects it
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
}, 30_000); // starting Chromium

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await svc?.stop();
  await site?.stop();
  await dns?.stop();
});

describe.skipIf(!available)("the dashboard in Chromium", () => {
  let crawlUrl = "";

  test(
    "sign in with the API key",
    async () => {
      await page.goto(`${svc.origin}/`);
      expect(new URL(page.url()).pathname).toBe("/ui/sign-in");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
      await shot("sign-in");
      await page.getByLabel("API key").fill("lp_wrongwrongwrongwrongwrongwrongwrongwrong");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expectLocator(page.getByRole("alert")).toContainText("Sign-in refused");
      await page.getByLabel("API key").fill(svc.adminKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${svc.origin}/`);
      expect(await page.locator("h1").textContent()).toBe("Overview");
      const cookie = (await context.cookies()).find((c) => c.name === "lp_session")!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
      expect(await page.evaluate(() => document.cookie)).not.toContain("lp_session");
    },
    STEP_MS,
  );

  test(
    "add the site and verify it with the file method",
    async () => {
      await page.getByLabel("Domain or URL").fill(site.host);
      await page.getByLabel("Start page (optional)").fill(site.url("/"));
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.waitForURL(/\/ui\/domains\/[0-9a-f-]+\?notice=added$/);
      await page.getByRole("button", { name: "Verify" }).click();
      await expectLocator(page.getByRole("alert")).toContainText("could not be verified");
      expect(await page.getByRole("alert").textContent()).toContain("File on the site: ");
      token = (await page.locator("h3:text('File on the site') + p + pre").textContent())!.trim();
      expect(token.length).toBeGreaterThan(20);
      await page.getByRole("button", { name: "Verify" }).click();
      await expectLocator(page.getByRole("status")).toContainText("Domain verified");
      await page.getByLabel("Cron expression").fill("0 3 * * 1");
      await page.getByLabel("Time zone (IANA)").fill("Europe/Berlin");
      await page.getByRole("button", { name: "Preview" }).click();
      expect(await page.locator("ol li").count()).toBe(5);
      await shot("domain");
    },
    STEP_MS,
  );

  test(
    "start a crawl, watch its progress, then read the broken links grouped by target",
    async () => {
      const polled = page.waitForResponse((response) => response.url().endsWith("/progress.json"), { timeout: 30_000 });
      await page.getByRole("button", { name: "Start crawl" }).click();
      await page.waitForURL(/\/ui\/crawls\/[0-9a-f-]+$/);
      crawlUrl = page.url();
      const progress = page.locator("[data-progress-url]");
      expect(await progress.count()).toBe(1);
      await shot("crawl-running");
      const poll = await (await polled).json();
      expect(Object.keys(poll)).toEqual([
        "status",
        "pages_crawled",
        "total_links",
        "broken_links",
        "targets_found",
        "targets_checked",
        "targets_queued",
        "percent_done",
        "pages_per_second",
        "targets_per_second",
        "seconds_left",
        "elapsed_seconds",
        "waiting_reason",
        "shown",
        "as_of",
      ]);
      expect(poll.waiting_reason).toBe("");
      // The script polls the progress JSON and reloads the page when the crawl ends.
      await page.locator("h1 .badge", { hasText: "completed" }).waitFor({ timeout: 30_000 });
      expect(await page.locator("[data-progress-url]").count()).toBe(0);
      const missingRow = page.locator("tr.broken-target", { has: page.locator(`a[href="${site.url("/missing")}"]`) });
      expect(await missingRow.locator("td.num").textContent()).toBe(String(SLOW_PAGES + 2));
      await missingRow.locator("summary").click();
      await expectLocator(missingRow.locator("details ul")).toBeVisible();
      expect(await missingRow.locator("details li").count()).toBe(SLOW_PAGES + 2);
      await shot("crawl");
    },
    CRAWL_STEP_MS,
  );

  test(
    "filter by status and kind",
    async () => {
      await page.getByLabel("Status code").fill("410");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/status=410/);
      expect(await page.locator("tr.broken-target").count()).toBe(1);
      expect(await page.locator("tr.broken-target a.url").first().textContent()).toBe(site.url("/gone"));
      await page.getByRole("link", { name: "Reset" }).click();
      await page.getByLabel("Kind").selectOption("image");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/kind=image/);
      expect(await page.locator("tr.broken-target").count()).toBe(0); // images were not scanned in this crawl
      await page.goto(crawlUrl);
    },
    STEP_MS,
  );

  test(
    "export the report as CSV and JSON",
    async () => {
      const detail = await svc.runtime.crawls.get(crawlUrl.split("/").pop()!);
      const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
      expect(csv.suggestedFilename()).toBe(`linkpatrol-${detail.id}.csv`);
      expect(
        readFileSync((await csv.path())!, "utf8")
          .trim()
          .split("\n"),
      ).toHaveLength(detail.total_links + 1);
      const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download JSON", exact: true }).click()]);
      expect(JSON.parse(readFileSync((await json.path())!, "utf8")).links).toHaveLength(detail.total_links);
    },
    STEP_MS,
  );

  test(
    "hostile link texts render as text: no dialog, no injected element",
    async () => {
      await page.goto(crawlUrl);
      await page.locator("details summary").first().waitFor();
      for (const summary of await page.locator("details summary").all()) await summary.click();
      const main = await page.locator("main").innerText();
      for (const text of PAYLOAD_TEXTS) expect(main).toContain(text);
      const injected = await page.evaluate(() => document.querySelectorAll("main img, main svg:not(.trend), main b, main script, [onerror], [onload]").length);
      expect(injected).toBe(0);
      expect(await page.evaluate(() => document.scripts.length)).toBe(1);
      expect(dialogs).toEqual([]);
    },
    STEP_MS,
  );

  test(
    "cancel asks first; declining keeps the crawl running",
    async () => {
      await page.goto(crawlUrl.replace(/\/ui\/crawls\/.*/, "/"));
      await page.locator("a", { hasText: site.host }).click();
      await page.getByRole("button", { name: "Start crawl" }).click();
      await page.waitForURL(/\/ui\/crawls\/[0-9a-f-]+$/);
      const id = page.url().split("/").pop()!;
      let asked = "";
      page.once("dialog", (dialog) => {
        asked = dialog.message();
        void dialog.dismiss();
      });
      await page.getByRole("button", { name: "Cancel crawl" }).click();
      expect(asked).toContain("Cancel this crawl?");
      expect(["pending", "running", "completed"]).toContain((await svc.runtime.crawls.get(id)).status);
      await page.locator("h1 .badge", { hasText: "completed" }).waitFor({ timeout: 30_000 });
    },
    CRAWL_STEP_MS,
  );

  test(
    "overview with the trend chart, webhooks page, and a phone-sized screen",
    async () => {
      await page.goto(`${svc.origin}/`);
      expect(await page.locator("svg.trend").count()).toBe(1);
      await shot("overview");
      await page.goto(`${svc.origin}/ui/webhooks`);
      await shot("webhooks");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${svc.origin}/`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1)).toBe(true);
      await shot("overview-phone");
      await page.goto(crawlUrl);
      await shot("crawl-phone");
      expect(dialogs).toEqual([]);
    },
    STEP_MS,
  );
});

/** Playwright's web-first assertion without its test runner: waits up to 5 s for the locator to pass. */
function expectLocator(locator: ReturnType<Page["locator"]>) {
  const wait = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await Bun.sleep(50);
    }
    throw new Error(`${what} within 5 s`);
  };
  return {
    toContainText: (text: string) => wait(async () => ((await locator.textContent().catch(() => "")) ?? "").includes(text), `expected text "${text}"`),
    toBeVisible: () => wait(() => locator.isVisible(), "expected visible"),
  };
}

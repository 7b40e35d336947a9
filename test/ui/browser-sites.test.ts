import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HAS_CHROMIUM, launchChromium } from "../helpers/chromium.ts";

/**
 * Managing a site in a real browser (Debian's Chromium through playwright-core, never a downloaded browser): paste
 * a plain-HTTP URL, verify, fix the start page, have a refused form keep what was typed, silence a dead part of
 * the site with ignore rules and crawl, see a disabled button look disabled, create and revoke an API key, delete
 * the domain after its confirmation page. Hostile text stays text; no dialog opens.
 */

const available = HAS_CHROMIUM;
/** A browser step on a loaded 2-core machine takes longer than bun's 5 s default. */
const STEP_MS = 30_000;

const html = (body: string) => `<!doctype html><html><head><title>docs</title></head><body>${body}</body></html>`;

let svc: TestService;
let site: LoopbackSite;
let other: LoopbackSite;
let browser: Browser;
let page: Page;
let token = "";
const dialogs: string[] = [];

beforeAll(async () => {
  if (!available) return;
  svc = await startTestService();
  site = await startLoopbackSite({
    "/docs/index.html": {
      body: html(`<a href="/docs/guide.html">guide</a> <a href="/docs/private/secret.html">private</a> <a href="/docs/missing.html">missing</a>`),
    },
    "/docs/guide.html": { body: html(`<a href="/docs/index.html">home</a> <a href="/docs/private/more.html">more</a>`) },
    "/.well-known/linkpatrol-verify.txt": () => (token === "" ? new Response("no", { status: 404 }) : new Response(`${token}\n`)),
  });
  other = await startLoopbackSite({ "/": { body: html("another site") } });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
}, 30_000);

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await svc?.stop();
  await site?.stop();
  await other?.stop();
});

describe.skipIf(!available)("managing a site in Chromium", () => {
  let domainUrl = "";

  test(
    "paste a plain-HTTP URL: the domain gets that start page and verifies",
    async () => {
      await page.goto(`${svc.origin}/ui/sign-in`);
      await page.getByLabel("API key").fill(svc.adminKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${svc.origin}/`);
      await page.getByLabel("Domain or URL").fill(site.url("/docs/index.html"));
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.waitForURL(/\/ui\/domains\/[0-9a-f-]+\?notice=added$/);
      domainUrl = page.url().replace(/\?.*$/, "");
      expect(await page.getByRole("status").textContent()).toContain(`Crawls begin at ${site.url("/docs/index.html")}`);
      token = (await page.locator("h3:text('File on the site') + p + pre").textContent())!.trim();
      await page.getByRole("button", { name: "Verify" }).click();
      await page.waitForURL(/notice=verified$/);
      const domain = await svc.runtime.domains.get(domainUrl.split("/").pop()!);
      expect(domain).toMatchObject({ name: site.host, root_url: site.url("/docs/index.html"), verified: true });
    },
    STEP_MS,
  );

  test(
    "a refused start page and schedule come back as typed, with the reason in words",
    async () => {
      await page.getByLabel("Start page URL").fill(`${other.origin}/docs/`);
      await page.getByRole("button", { name: "Save start page" }).click();
      const refused = page.locator("section[aria-labelledby=start-page] [role=alert]");
      await refused.waitFor();
      expect(await refused.textContent()).toContain("The start page was not saved.");
      expect(await page.getByLabel("Start page URL").inputValue()).toBe(`${other.origin}/docs/`);
      await page.getByLabel("Start page URL").fill(site.url("/docs/guide.html"));
      await page.getByRole("button", { name: "Save start page" }).click();
      await page.waitForURL(/notice=root$/);
      await page.getByLabel("Start page URL").fill(site.url("/docs/index.html"));
      await page.getByRole("button", { name: "Save start page" }).click();
      await page.waitForURL(/notice=root$/);

      await page.getByLabel("Cron expression").fill("30 2 * * *");
      await page.getByLabel("Time zone (IANA)").fill("Mars/Olympus");
      await page.getByRole("button", { name: "Save schedule" }).click();
      const scheduleAlert = page.locator("section[aria-labelledby=schedule] [role=alert]");
      await scheduleAlert.waitFor();
      const alert = await scheduleAlert.textContent();
      expect(alert).toContain("The schedule was not saved.");
      expect(alert).toContain('Time zone: unknown time zone "Mars/Olympus"');
      expect(await page.getByLabel("Cron expression").inputValue()).toBe("30 2 * * *");
      expect(await page.getByLabel("Time zone (IANA)").inputValue()).toBe("Mars/Olympus");
    },
    STEP_MS,
  );

  test(
    "ignore rules keep a part of the site out of the crawl and a known dead link out of the broken count",
    async () => {
      await page.goto(domainUrl);
      await page.getByLabel("Not checked (never fetched, not listed)").fill("/docs/private/");
      await page.getByLabel("Checked, never counted broken (muted)").fill("/docs/missing\\.html$");
      await page.getByRole("button", { name: "Save ignore rules" }).click();
      await page.waitForURL(/notice=rules$/);
      await page.getByRole("button", { name: "Start crawl" }).click();
      await page.waitForURL(/\/ui\/crawls\/[0-9a-f-]+$/);
      await page.locator("h1 .badge", { hasText: "completed" }).waitFor({ timeout: 30_000 });
      expect(await page.locator("main").innerText()).toContain("started from the dashboard");
      expect(await page.locator("main").innerText()).toContain("2 links kept out");
      expect(await page.locator("dl.stats dd").nth(2).textContent()).toBe("0");
      expect(site.requests.filter((line) => line.includes("/docs/private/"))).toEqual([]);
      expect(site.requests.some((line) => line.includes("/docs/missing.html"))).toBe(true);
    },
    STEP_MS,
  );

  test(
    "a disabled button looks disabled",
    async () => {
      await page.goto(`${svc.origin}/`);
      await page.getByLabel("Domain or URL").fill(other.url("/"));
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.waitForURL(/notice=added$/);
      const start = page.getByRole("button", { name: "Start crawl" });
      expect(await start.isDisabled()).toBe(true);
      const looks = await start.evaluate((button) => {
        const style = getComputedStyle(button);
        const enabled = getComputedStyle(document.querySelector("button[type=submit]:not([disabled]):not(.secondary):not(.danger)")!);
        return { cursor: style.cursor, background: style.backgroundColor, enabledBackground: enabled.backgroundColor };
      });
      expect(looks.cursor).toBe("not-allowed");
      expect(looks.background).not.toBe(looks.enabledBackground);
    },
    STEP_MS,
  );

  test(
    "an admin creates a key with one scope, it works on the API, is revoked and stops working",
    async () => {
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByLabel("Name").fill(`<img src=x onerror=alert(1)> "reader"`);
      await page.getByLabel("crawls:read").check();
      await page.getByRole("button", { name: "Create key" }).click();
      const secret = (await page.locator("#new-key-secret").textContent())!;
      expect(secret).toMatch(/^lp_/);
      expect(await page.locator("main").innerText()).toContain(`<img src=x onerror=alert(1)> "reader"`);
      expect((await svc.call("GET", "/crawls", { key: secret })).status).toBe(200);
      expect((await svc.call("GET", "/domains", { key: secret })).status).toBe(403);
      await page.getByRole("link", { name: `Revoke <img src=x onerror=alert(1)> "reader"` }).click();
      await page.getByRole("button", { name: "Revoke key" }).click();
      await page.waitForURL(/notice=revoked$/);
      expect((await svc.call("GET", "/crawls", { key: secret })).status).toBe(401);
    },
    STEP_MS,
  );

  test(
    "delete the domain after its confirmation page: it is gone with its crawls",
    async () => {
      const id = domainUrl.split("/").pop()!;
      await page.goto(domainUrl);
      await page.getByRole("link", { name: "Delete domain…" }).click();
      expect(await page.locator("main").innerText()).toContain("with its 1 crawl, every link they found");
      await page.getByRole("button", { name: "Delete domain and its history" }).click();
      await page.waitForURL(`${svc.origin}/?notice=deleted`);
      expect(await page.getByRole("status").textContent()).toContain("Domain deleted");
      expect((await svc.runtime.domains.list(1, 100)).items.some((domain) => domain.id === id)).toBe(false);
      expect((await svc.runtime.crawls.list({ domainId: id }, 1, 10)).total).toBe(0);
      expect(dialogs).toEqual([]);
    },
    STEP_MS,
  );
});

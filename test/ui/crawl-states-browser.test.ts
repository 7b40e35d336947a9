import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { PAYLOAD_TEXTS } from "./xss-payloads.ts";
import { HAS_CHROMIUM, launchChromium } from "../helpers/chromium.ts";

/**
 * Honest crawl states in Chromium: a failed crawl says why and keeps the last completed crawl's numbers in
 * view; a running crawl's progress has a recent rate, URLs left and an estimate, and its counters and broken
 * table agree; Start crawl is disabled (visibly, with the reason) while a crawl runs; times read in the
 * browser's zone with UTC on hover (UTC, labelled, without the script); and a phone-wide screen never scrolls
 * sideways, with a 300-character URL wrapping in a few lines. Hostile link texts are on every page.
 */

const available = HAS_CHROMIUM;
const STEP_MS = 30_000;
const CRAWL_STEP_MS = 60_000;
/** A chain of slow pages, each linking to the next and to a missing page of its own. */
const SLOW_PAGES = 30;
const ZONE = "Asia/Kolkata";

const html = (body: string) => `<!doctype html><html><head><title>site</title></head><body>${body}</body></html>`;
const escapeHtml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
/** 300 characters: separators, a query, and a 120-character run with none. */
const LONG_PATH = `/${"section-name/".repeat(8)}${"x".repeat(120)}?first=value&second=${"long-value.".repeat(6)}`.slice(0, 300);
const HOSTILE = [...PAYLOAD_TEXTS, "\u202Egnp.exe", `"quoted" 'text'`];

let svc: TestService;
let down: LoopbackSite;
let slow: LoopbackSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let downDomain = "";
let completedCrawl = "";
let failedCrawl = "";
let slowDomain = "";
const dialogs: string[] = [];

function linksPage(): string {
  const hostile = HOSTILE.map((text, i) => `<a href="/missing-${i}">${escapeHtml(text)}</a>`).join(" ");
  return html(`<a href="/a">A</a> <a href="/loop">loop</a> <a href="${escapeHtml(LONG_PATH)}">${escapeHtml(HOSTILE[0]!)} long</a> ${hostile}`);
}

async function newPage(options: { timezoneId?: string; viewport?: { width: number; height: number }; javaScriptEnabled?: boolean } = {}): Promise<Page> {
  context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    timezoneId: options.timezoneId,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const fresh = await context.newPage();
  fresh.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await fresh.goto(`${svc.origin}/ui/sign-in`);
  await fresh.getByLabel("API key").fill(svc.adminKey);
  await fresh.getByRole("button", { name: "Sign in" }).click();
  await fresh.waitForURL(`${svc.origin}/`);
  return fresh;
}

beforeAll(async () => {
  if (!available) return;
  svc = await startTestService({ crawler: { per_host_concurrency: 2 } });
  down = await startLoopbackSite({
    "/": { body: linksPage() },
    "/a": { body: html(`<a href="/">home</a> <a href="/gone">gone</a>`) },
    "/gone": { status: 410 },
    "/loop": { status: 302, headers: { location: "/loop" } },
  });
  downDomain = await verifiedDomain(svc, down.url("/"));
  completedCrawl = await startCrawl(svc, downDomain);
  await waitForCrawl(svc, completedCrawl);
  await down.stop(); // the site goes down: its port now refuses connections
  failedCrawl = await startCrawl(svc, downDomain);
  await waitForCrawl(svc, failedCrawl);

  slow = await startLoopbackSite(
    { "/": { body: html(`<a href="/slow/0">slow 0</a> <a href="/missing-root">${escapeHtml(PAYLOAD_TEXTS[1]!)}</a>`) } },
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        if (!path.startsWith("/slow/")) return new Response("not found", { status: 404 });
        await Bun.sleep(400);
        // Each slow page adds a broken target of its own, so the broken count grows while the crawl runs.
        const n = Number(path.slice("/slow/".length));
        const next = n + 1 < SLOW_PAGES ? `<a href="/slow/${n + 1}">next</a>` : "";
        return new Response(html(`<a href="/">home</a> ${next} <a href="/missing${path}">${escapeHtml(PAYLOAD_TEXTS[0]!)}</a>`), {
          headers: { "content-type": "text/html" },
        });
      },
    },
  );
  slowDomain = await verifiedDomain(svc, slow.url("/"));

  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await svc?.stop();
  await slow?.stop();
});

describe.skipIf(!available)("honest crawl states in Chromium", () => {
  test("the fixture: a completed crawl, then one failed because the start page refused", async () => {
    expect(await svc.runtime.crawls.get(completedCrawl)).toMatchObject({ status: "completed" });
    expect((await svc.runtime.crawls.get(completedCrawl)).broken_links).toBeGreaterThan(0);
    expect(await svc.runtime.crawls.get(failedCrawl)).toMatchObject({ status: "failed", failure: "start_page", broken_links: 0 });
    expect((await svc.runtime.crawls.get(failedCrawl)).error).toMatch(/refused/i);
  });

  test(
    "a failed crawl shows why, and the last completed crawl's numbers with a link, on the overview, domain and crawl pages",
    async () => {
      page = await newPage();
      const done = await svc.runtime.crawls.get(completedCrawl);
      const row = page.locator("tr", { has: page.locator(`a[href="/ui/domains/${downDomain}"]`) });
      const reason = await row.locator(".crawl-failure").innerText();
      expect(reason).toContain("Failed: start page could not be crawled.");
      expect(reason).toMatch(/refused/i);
      expect(await row.locator(`.crawl-failure a[href="/ui/crawls/${completedCrawl}"]`).count()).toBe(1);
      // The numbers are the completed crawl's, not the failed one's zeros.
      const cells = await row.locator("td.num").allInnerTexts();
      expect(cells).toEqual([String(done.pages_crawled), String(done.broken_links), String(done.new_broken_links ?? "—")]);

      await page.goto(`${svc.origin}/ui/domains/${downDomain}`);
      const latest = await page.locator("#latest-failed").innerText();
      expect(latest).toContain("The latest crawl (started");
      expect(latest).toContain("Failed: start page could not be crawled.");
      expect(latest).toMatch(/refused/i);
      expect(latest).toContain(`${done.pages_crawled} pages, ${done.total_links} links, ${done.broken_links} broken.`);
      expect(await page.locator(`#latest-failed a[href="/ui/crawls/${completedCrawl}"]`).count()).toBe(1);

      await page.goto(`${svc.origin}/ui/crawls/${failedCrawl}`);
      const outcome = await page.locator("#crawl-outcome").innerText();
      expect(outcome).toMatch(/Failed: start page could not be crawled\. The start page .* could not be fetched: .*refused/i);
      expect(outcome).toContain(`${done.pages_crawled} pages, ${done.total_links} links, ${done.broken_links} broken.`);
      await page.locator(`#crawl-outcome a[href="/ui/crawls/${completedCrawl}"]`).click();
      await page.waitForURL(`${svc.origin}/ui/crawls/${completedCrawl}`);
      const main = (await page.locator("main").textContent())!; // link texts are inside folded rows
      for (const text of PAYLOAD_TEXTS) expect(main).toContain(text);
      expect(dialogs).toEqual([]);
      await context.close();
    },
    STEP_MS,
  );

  test(
    "a running crawl: recent rate, URLs left, an estimate; counters and table agree at every poll; Start disabled, then enabled",
    async () => {
      page = await newPage();
      await page.goto(`${svc.origin}/ui/domains/${slowDomain}`);
      const start = page.getByRole("button", { name: "Start crawl" });
      expect(await start.isEnabled()).toBe(true);
      await start.click();
      await page.waitForURL(/\/ui\/crawls\/[0-9a-f-]+$/);
      const crawlId = page.url().split("/").pop()!;

      // Sampled at polls until the crawl ends: the panel, the table's count and its rows, read in one go.
      const samples: { broken: string; table: string | null; rows: number; rate: string; left: string; percent: string; status: string }[] = [];
      const deadline = Date.now() + 45_000;
      while (Date.now() < deadline) {
        const answer = await page.waitForResponse((r) => r.url().endsWith("/progress.json"), { timeout: 15_000 }).catch(() => null);
        if (answer === null) break;
        await Bun.sleep(300); // let the script apply it (and swap the table when the count moved)
        const sample = await page.evaluate(() => {
          const field = (name: string) => document.querySelector(`[data-progress-url] [data-field="${name}"]`)?.textContent ?? "";
          const rows = Array.from(document.querySelectorAll("#live-results tr.broken-target td.num")).reduce((sum, cell) => sum + Number(cell.textContent), 0);
          return {
            broken: field("broken_links"),
            table: document.getElementById("live-results")?.getAttribute("data-broken-links") ?? null,
            rows,
            rate: field("rate"),
            left: field("time_left"),
            percent: field("percent_done"),
            status: field("status"),
          };
        });
        if (sample.table === null) break; // the crawl ended and the page reloaded
        samples.push(sample);
        if (samples.length === 3) {
          // While it runs, a second start is not offered: the domain page says why and links the crawl.
          const other = await context.newPage();
          await other.goto(`${svc.origin}/ui/domains/${slowDomain}`);
          const button = other.getByRole("button", { name: "Start crawl" });
          expect(await button.isDisabled()).toBe(true);
          expect(await button.getAttribute("aria-disabled")).toBe("true");
          const blocked = other.locator("#start-blocked");
          expect(await blocked.innerText()).toContain("A crawl of this domain is running");
          expect(await blocked.locator(`a[href="/ui/crawls/${crawlId}"]`).innerText()).toBe("View the running crawl");
          const look = await button.evaluate((el) => {
            const style = getComputedStyle(el);
            return { cursor: style.cursor, border: style.borderTopStyle, color: style.color, background: style.backgroundColor };
          });
          expect(look.cursor).toBe("not-allowed");
          expect(look.border).toBe("dashed");
          expect(contrast(look.color, look.background)).toBeGreaterThanOrEqual(4.5);
          // A start that races anyway (the button forced on) is refused in words, with the running crawl linked.
          await button.evaluate((el) => {
            el.removeAttribute("disabled");
            el.removeAttribute("aria-disabled");
          });
          await button.click();
          await other.waitForLoadState();
          const alert = await other.getByRole("alert").innerText();
          expect(alert).toContain("The crawl was not started: a crawl of this domain is already in progress.");
          expect(alert).not.toContain(crawlId);
          expect(alert).not.toContain("crawl_in_progress");
          expect(await other.locator(`#start-blocked a[href="/ui/crawls/${crawlId}"]`).count()).toBe(1);
          await other.close();
        }
      }
      const running = samples.filter((s) => s.status === "running");
      expect(running.length).toBeGreaterThanOrEqual(3);
      // Counters and table agree at every poll: the panel's count, the table's own count, and its rows' links.
      for (const s of running) {
        expect(s.table).toBe(s.broken.replaceAll(",", ""));
        expect(s.rows).toBe(Number(s.table));
      }
      expect(new Set(running.map((s) => s.broken)).size).toBeGreaterThan(1); // the count moved while watched
      expect(running.some((s) => /^[\d.]+ pages\/s · [\d.]+ URLs\/s \(last \d+ s\)$/.test(s.rate))).toBe(true);
      expect(running.some((s) => /^about \d/.test(s.left))).toBe(true);
      expect(running.every((s) => /^(about \d.*|estimating…|finishing…)$/.test(s.left))).toBe(true);
      expect(running.some((s) => /^\d+ %$/.test(s.percent))).toBe(true);

      await page.locator("h1 .badge", { hasText: "completed" }).waitFor({ timeout: 30_000 });
      const done = await svc.runtime.crawls.get(crawlId);
      expect(done.broken_links).toBe(SLOW_PAGES + 1);
      await page.goto(`${svc.origin}/ui/domains/${slowDomain}`);
      expect(await page.getByRole("button", { name: "Start crawl" }).isEnabled()).toBe(true);
      expect(await page.locator("#start-blocked").count()).toBe(0);
      expect(dialogs).toEqual([]);
      await context.close();
    },
    CRAWL_STEP_MS,
  );

  test(
    `times read in the browser's zone (${ZONE}), UTC on hover; without the script, UTC labelled`,
    async () => {
      page = await newPage({ timezoneId: ZONE });
      await page.goto(`${svc.origin}/ui/crawls/${completedCrawl}`);
      const times = await page
        .locator("main time[data-local='abs']")
        .evaluateAll((nodes) => nodes.map((n) => ({ iso: n.getAttribute("datetime")!, text: n.textContent!, title: n.getAttribute("title")! })));
      expect(times.length).toBeGreaterThanOrEqual(3);
      for (const time of times) {
        const kolkata = new Date(Date.parse(time.iso) + 330 * 60_000).toISOString().slice(0, 16).replace("T", " ");
        expect(time.text).toBe(`${kolkata} GMT+5:30`);
        expect(time.title).toBe(`${time.iso.slice(0, 16).replace("T", " ")} UTC`);
      }
      await page.goto(`${svc.origin}/`);
      const ago = page.locator("main time[data-local='rel']").first();
      expect(await ago.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d GMT\+5:30 \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
      await context.close();

      page = await newPage({ timezoneId: ZONE, javaScriptEnabled: false });
      await page.goto(`${svc.origin}/ui/crawls/${completedCrawl}`);
      for (const text of await page.locator("main time[data-local='abs']").allInnerTexts()) expect(text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await context.close();
    },
    STEP_MS,
  );

  test(
    "at 375 px: nothing scrolls sideways, a 300-character URL wraps in a few lines, badges keep their shape",
    async () => {
      page = await newPage({ viewport: { width: 375, height: 740 } });
      const paths = ["/", `/ui/domains/${downDomain}`, `/ui/crawls/${completedCrawl}`, `/ui/crawls/${failedCrawl}`, `/ui/crawls/${completedCrawl}/changes`];
      for (const path of paths) {
        await page.goto(`${svc.origin}${path}`);
        const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        expect({ path, ...width, fits: width.scroll <= width.client }).toMatchObject({ fits: true });
        // A badge of several words (a redirect loop's error) stays one line: a pill, not an oval.
        const badges = await page
          .locator(".badge")
          .evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect().height / (Number.parseFloat(getComputedStyle(n).lineHeight) || 20)));
        expect({ path, tallest: Math.max(...badges) < 1.6 }).toEqual({ path, tallest: true });
      }
      await page.goto(`${svc.origin}/ui/crawls/${completedCrawl}`);
      const long = page.locator("a.url", { hasText: "x".repeat(100) }).first();
      expect((await long.textContent())!.length).toBe(slowOrigin(down) + 300);
      const box = await long.evaluate((el) => ({
        height: el.getBoundingClientRect().height,
        line: Number.parseFloat(getComputedStyle(el).lineHeight) || 20,
        width: el.getBoundingClientRect().width,
      }));
      // ~15 lines of ~22 characters in its column here; one character a line would be over 300.
      expect(box.height / box.line).toBeLessThanOrEqual(20);
      expect(box.width).toBeGreaterThan(100);
      // Wide tables scroll inside their box, not the page.
      const wrap = await page
        .locator(".table-wrap")
        .first()
        .evaluate((el) => getComputedStyle(el).overflowX);
      expect(wrap).toBe("auto");
      const main = (await page.locator("main").textContent())!; // link texts are inside folded rows
      for (const text of PAYLOAD_TEXTS) expect(main).toContain(text);
      expect(dialogs).toEqual([]);
      await context.close();
    },
    STEP_MS,
  );
});

/** WCAG contrast ratio of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = css
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Length of a site's origin, which its absolute URLs start with. */
function slowOrigin(site: LoopbackSite): number {
  return site.origin.length;
}

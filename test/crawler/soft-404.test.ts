import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server as NetServer } from "node:net";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Soft 404s over real sockets. A site whose missing pages answer 200 with a "not found" page (which repeats the
 * path asked for): links to such pages carry a `soft_404:` warning, or are broken with soft_404_broken; real
 * pages that share its template, thin ones included, are not flagged, nor is the start page, and a soft 404's
 * own links are not followed. A site that answers 404 gets one probe and no warning. A single-page app that
 * answers every path with its start page gets no flag on any page, and a crawl warning that missing pages
 * answer 200. So does every other site whose probe gets 2xx without a page to compare with (random content, not
 * HTML), and a probe that gets no answer says so.
 */

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
const NAV = `<nav><a href="/">Home</a> <a href="/real">Docs</a> <a href="/thin">Contact</a></nav><footer>© Example Corp — all rights reserved — made with care</footer>`;
const layout = (title: string, main: string) =>
  `<!doctype html><html><head><title>${title}</title><script>var x = "${"noise ".repeat(20)}";</script></head><body>${NAV}<main>${main}</main></body></html>`;

let svc: TestService;
let soft: LoopbackSite;
let plain: LoopbackSite;
let spa: LoopbackSite;
let random: LoopbackSite;
let plainText: LoopbackSite;
let garbled: NetServer;
let slowProbe: LoopbackSite;
/** What slowProbe was asked, with a line when it answered a probe: the crawl's order of events as the site saw it. */
const slowLog: string[] = [];

function notFoundPage(request: Request): Response {
  const path = new URL(request.url).pathname;
  return html(
    layout(
      "Page not found",
      `<h1>Oops</h1><p>Sorry, the page ${path} does not exist on this site. Try the search box or go back home.</p><a href="more/help.html">help</a>`,
    ),
  );
}

beforeAll(async () => {
  soft = await startLoopbackSite(
    {
      "/": () =>
        html(
          layout(
            "Example home",
            `<p>Welcome to the example site, a place with many pages about many things.</p><a href="/gone-1">old</a> <a href="/gone/2?x=1">older</a> <a href="/moved">moved</a>`,
          ),
        ),
      "/real": () => html(layout("Documentation", `<p>${"The documentation explains every option in detail. ".repeat(30)}</p>`)),
      "/thin": () => html(layout("Contact", "<p>Write to us.</p>")),
      "/moved": () => new Response(null, { status: 302, headers: { location: "/gone-3" } }),
    },
    { fallback: notFoundPage },
  );
  plain = await startLoopbackSite({
    "/": () => html(layout("Home", `<a href="/real">real</a> <a href="/missing">missing</a>`)),
    "/real": () => html(layout("Real", "<p>real page</p>")),
  });
  const shell = layout("My App", `<div id="root"></div><noscript>You need JavaScript to run this app.</noscript>`).replace(
    "</main>",
    `<a href="/app/settings">Settings</a> <a href="/app/profile">Profile</a></main>`,
  );
  spa = await startLoopbackSite({}, { fallback: () => html(shell) });
  // Every path answers 200 with words drawn at random: no two answers are the same page.
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];
  const babble = () => Array.from({ length: 60 }, () => words[Math.floor(Math.random() * words.length)]).join(" ");
  random = await startLoopbackSite(
    { "/": () => html(`<title>Home</title><p>${babble()}</p><a href="/a">a</a> <a href="/missing">missing</a>`) },
    { fallback: () => html(`<title>${babble().slice(0, 30)}</title><p>${babble()}</p>`) },
  );
  plainText = await startLoopbackSite(
    { "/": () => html(`<title>Home</title><a href="/missing">missing</a>`) },
    { fallback: () => new Response("ok", { headers: { "content-type": "text/plain" } }) },
  );
  garbled = await startGarbledProbeSite();
  // The soft site again, with a probe that takes a while to answer.
  slowProbe = await startLoopbackSite(
    {
      "/": () =>
        html(
          layout(
            "Example home",
            `<p>Welcome to the example site, a place with many pages about many things.</p><a href="/gone-1">old</a> <a href="/real">docs</a>`,
          ),
        ),
      "/real": () => html(layout("Documentation", `<p>${"The documentation explains every option in detail. ".repeat(30)}</p>`)),
    },
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        slowLog.push(`asked ${path}`);
        if (path.startsWith("/linkpatrol-missing-")) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          slowLog.push("probe answered");
        }
        return notFoundPage(request);
      },
    },
  );
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
  for (const site of [soft, plain, spa, random, plainText, slowProbe]) await site?.stop();
  garbled?.close();
});

/**
 * A site on a raw socket that answers its pages and 404s properly, and the probe's URL with bytes that are not
 * HTTP (Bun.serve cannot be made to answer malformed).
 */
async function startGarbledProbeSite(): Promise<NetServer> {
  const server = createServer((socket) => {
    socket.once("data", (data) => {
      const path = data.toString("latin1").split(" ")[1] ?? "/";
      if (path.startsWith("/linkpatrol-missing-")) return void socket.end("this is not HTTP\r\n\r\n");
      const body = path === "/" ? `<title>Home</title><a href="/a">a</a>` : path === "/a" ? "<title>A</title><p>a page</p>" : "not found";
      const status = path === "/" || path === "/a" ? "200 OK" : "404 Not Found";
      socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function crawlOf(site: LoopbackSite, options: Record<string, boolean> = {}) {
  const id = await startCrawl(svc, await domainOf(site), options);
  const crawl = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  const byPath = Object.fromEntries(links.map((link) => [new URL(link.url).pathname + new URL(link.url).search, link]));
  return { crawl, links, byPath, broken: await readAll(svc, `/crawls/${id}/broken`) };
}

const domains = new Map<LoopbackSite, string>();
async function domainOf(site: LoopbackSite): Promise<string> {
  if (!domains.has(site)) domains.set(site, await verifiedDomain(svc, site.url("/")));
  return domains.get(site)!;
}

describe("a site whose missing pages answer 200", () => {
  test("links to its not-found page carry a soft_404 warning and are not broken", async () => {
    const { crawl, byPath } = await crawlOf(soft);
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    for (const path of ["/gone-1", "/gone/2?x=1", "/moved"]) {
      expect(byPath[path]).toMatchObject({ status_code: 200, is_broken: false });
      expect(byPath[path].warning).toStartWith("soft_404: ");
    }
    // Real pages with the same template, a thin one included, and the start page are not flagged.
    for (const path of ["/", "/real", "/thin"]) expect(byPath[path].warning).toBeNull();
    // Two probes per crawl run (the second proves the not-found page is the same each time), and no crawl warning.
    expect(soft.requests.filter((line) => line.startsWith("GET /linkpatrol-missing-"))).toHaveLength(2);
    expect(crawl.warnings).toEqual([]);
    // A soft 404's links (relative ones resolve under a URL that does not exist) are not followed.
    expect(soft.requests.some((line) => line.includes("/more/help.html"))).toBe(false);
  });

  test("the probe runs alongside the crawl: pages read before it answers wait for it and are still judged", async () => {
    const { crawl, byPath } = await crawlOf(slowProbe);
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0, warnings: [] });
    expect(byPath["/gone-1"].warning).toStartWith("soft_404: ");
    expect(byPath["/real"].warning).toBeNull();
    // The missing page was asked before the first probe had its answer: the crawl did not wait for the probe to start.
    expect(slowLog.indexOf("asked /gone-1")).toBeGreaterThanOrEqual(0);
    expect(slowLog.indexOf("asked /gone-1")).toBeLessThan(slowLog.indexOf("probe answered"));
  });

  test("with soft_404_broken they are broken links, listed by /broken", async () => {
    const { crawl, broken } = await crawlOf(soft, { soft_404_broken: true });
    expect(crawl.broken_links).toBe(3);
    expect(broken.map((link) => new URL(link.url).pathname).sort()).toEqual(["/gone-1", "/gone/2", "/moved"]);
    expect(broken.every((link) => link.status_code === 200 && link.warning.startsWith("soft_404: "))).toBe(true);
  });
});

describe("a site that answers 404", () => {
  test("gets one probe and no soft_404 warning", async () => {
    const { crawl, links } = await crawlOf(plain, { soft_404_broken: true });
    expect(crawl).toMatchObject({ status: "completed", broken_links: 3, warnings: [] }); // /missing, and /thin from two pages
    expect(links.filter((link) => link.warning !== null)).toEqual([]);
    expect(plain.requests.filter((line) => line.startsWith("GET /linkpatrol-missing-"))).toHaveLength(1);
    // Nothing to compare with, so the start page is not fetched a second time.
    expect(plain.requests.filter((line) => line === "GET /")).toHaveLength(1);
  });
});

describe("a single-page app that answers every path with its start page", () => {
  test("no page is flagged, and the crawl warns that missing pages answer 200", async () => {
    const { crawl, links } = await crawlOf(spa, { soft_404_broken: true });
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    expect(links.length).toBeGreaterThan(2);
    expect(links.filter((link) => link.warning !== null)).toEqual([]);
    expect(crawl.warnings.some((w: string) => w.startsWith("the site answers HTTP 200 with its start page for a URL that does not exist"))).toBe(true);
  });
});

describe("a site whose probe gets 2xx but no page detection can use", () => {
  test("random content on every path: a crawl warning says missing pages cannot be told from real ones", async () => {
    const { crawl, byPath } = await crawlOf(random);
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    expect(byPath["/missing"]).toMatchObject({ status_code: 200, is_broken: false, warning: null });
    const warning = crawl.warnings.find((w: string) => w.includes("for URLs that do not exist"));
    expect(warning).toBe(
      `the site answers HTTP 200 for URLs that do not exist (GET ${random.origin}/linkpatrol-missing-…), with a different page each time: ` +
        "a missing page cannot be told from a real one, so broken internal links may pass as working and soft 404s are not detected",
    );
  });

  test("a body that is not HTML: the warning names what the probe got", async () => {
    const { crawl } = await crawlOf(plainText);
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    expect(crawl.warnings).toContain(
      `the site answers HTTP 200 for a URL that does not exist (GET ${plainText.origin}/linkpatrol-missing-…) with text/plain, not an HTML page: ` +
        "a missing page cannot be told from a real one, so broken internal links may pass as working and soft 404s are not detected",
    );
  });

  test("a probe that gets no HTTP answer: a crawl warning says so, and the crawl is otherwise unchanged", async () => {
    const { port } = garbled.address() as { port: number };
    const origin = `http://127.0.0.1:${port}`;
    const id = await startCrawl(svc, await verifiedDomain(svc, `${origin}/`));
    const crawl = await waitForCrawl(svc, id);
    expect(crawl).toMatchObject({ status: "completed", pages_crawled: 2, broken_links: 0 });
    expect(crawl.warnings).toEqual([
      `the soft-404 probe (GET ${origin}/linkpatrol-missing-…) got no answer (malformed HTTP response): soft 404s are not detected in this crawl, ` +
        "so a missing page that answers 200 passes as working",
    ]);
  });
});

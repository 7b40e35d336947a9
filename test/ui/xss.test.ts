import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Parser } from "htmlparser2";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient } from "./dashboard-client.ts";
import { PAYLOAD_TEXTS, startXssSite } from "./xss-payloads.ts";

/** Crawled content is hostile: every payload the site carries is served as escaped text, never as markup. */

let svc: TestService;
let site: LoopbackSite;
let crawlId: string;
let domainId: string;
beforeAll(async () => {
  svc = await startTestService();
  site = await startXssSite();
  domainId = await verifiedDomain(svc, site.url("/"));
  crawlId = await startCrawl(svc, domainId, { scan_images: true });
  await waitForCrawl(svc, crawlId);
}, 30_000); // one crawl of the payload site
afterAll(async () => {
  await svc.stop();
  await site.stop();
});

/** Every element and attribute the browser would build from `html` that a payload could have injected. */
function injected(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (["img", "svg", "b", "iframe", "object"].includes(name)) found.push(`<${name}>`);
      if (name === "script" && !/^\/ui\/assets\/dashboard\.[0-9a-f]+\.js$/.test(attributes.src ?? "")) found.push("<script> not ours");
      for (const [attribute, value] of Object.entries(attributes)) {
        if (attribute.startsWith("on")) found.push(`${name}[${attribute}]`);
        if ((attribute === "href" || attribute === "src" || attribute === "action") && /^\s*(javascript|data|vbscript):/i.test(value))
          found.push(`${name}[${attribute}=${value}]`);
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}

describe("the dashboard against a hostile site", () => {
  test("the crawl recorded the payloads (the test would otherwise prove nothing)", async () => {
    const broken = await svc.call("GET", `/crawls/${crawlId}/broken?limit=100`);
    const texts = broken.json.data.map((link: { link_text: string }) => link.link_text);
    for (const text of PAYLOAD_TEXTS) expect(texts).toContain(text);
  });

  test("the checker finds injected markup when there is some", () => {
    expect(injected('<p>x</p><img src=x onerror=alert(1)><a href="javascript:alert(1)">a</a>')).toEqual([
      "<img>",
      "img[onerror]",
      "a[href=javascript:alert(1)]",
    ]);
  });

  test("crawl, changes, domain and overview pages show every payload as text", async () => {
    const client = await signedInClient(svc);
    const crawlPage = await client.get(`/ui/crawls/${crawlId}`);
    expect(crawlPage.status).toBe(200);
    for (const text of PAYLOAD_TEXTS) {
      const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
      expect(crawlPage.html).toContain(escaped);
    }
    for (const path of [`/ui/crawls/${crawlId}`, `/ui/crawls/${crawlId}/changes`, `/ui/domains/${domainId}`, "/", `/ui/crawls/${crawlId}?q=%3Cscript%3E`]) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      expect(injected(page.html), path).toEqual([]);
    }
  });

  test("a search for a payload is echoed escaped in the filter form", async () => {
    const client = await signedInClient(svc);
    const page = await client.get(`/ui/crawls/${crawlId}?q=${encodeURIComponent('"><script>alert(9)</script>')}`);
    expect(page.html).toContain('value="&quot;&gt;&lt;script&gt;alert(9)&lt;/script&gt;"');
    expect(injected(page.html)).toEqual([]);
  });

  test("text that reaches a page uncleaned (an id in the address) shows its bidi controls as markers, whichever page", async () => {
    const client = await signedInClient(svc);
    const page = await client.get(`/ui/domains/${encodeURIComponent("\u202Egnp.exe")}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain("⟨U+202E⟩gnp.exe");
    expect(page.html).not.toContain("\u202E");
  });

  test("non-http URLs are shown as text, never as links", async () => {
    const client = await signedInClient(svc);
    const page = await client.get(`/ui/crawls/${crawlId}`);
    const hrefs = [...page.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    for (const href of hrefs) expect(href).toMatch(/^(\/|#|https?:\/\/)/);
  });
});

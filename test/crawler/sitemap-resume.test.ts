import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService } from "../helpers/service.ts";

/**
 * A crawl stopped while it checks its orphan pages (the sitemaps already read and recorded) resumes at the next
 * start without reading the sitemaps again, and ends with the counts and orphan list of an uninterrupted crawl:
 * no entry is recorded twice, no orphan is lost.
 */

let site: LoopbackSite;
let dir: string;
let release: () => void = () => {};
const hang = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: `<a href="/a">A</a>` },
    "/a": { body: "a" },
    "/orphan-1": { body: "one" },
    "/orphan-2": async () => {
      await hang; // still unanswered when the first service stops
      return new Response("two", { headers: { "content-type": "text/html" } });
    },
    "/sitemap.xml": (_r, s) =>
      new Response(`<urlset>${["/", "/a", "/orphan-1", "/orphan-2", "/missing"].map((p) => `<url><loc>${s.url(p)}</loc></url>`).join("")}</urlset>`, {
        headers: { "content-type": "application/xml" },
      }),
  });
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-sitemap-resume-"));
});
afterAll(async () => {
  release();
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the sitemaps are read once, and the resumed crawl ends with every orphan", async () => {
  const path = join(dir, "store.db");
  const first = await startTestService({ storage: { path } });
  let id: string;
  try {
    id = await startCrawl(first, await verifiedDomain(first, site.url("/")), { use_sitemap: true });
    // Bounded: 200 x 25 ms for the sitemap to be recorded and /orphan-2 to be asked.
    for (let i = 0; i < 200 && !site.requests.some((line) => line.endsWith(" /orphan-2")); i++) await Bun.sleep(25);
    expect(await first.runtime.crawls.get(id)).toMatchObject({ status: "running", sitemap_urls: 5, orphan_pages: 3 });
  } finally {
    await first.stop(); // the crawl stays running, to resume at the next start
  }
  release();
  const second = await startTestService({ storage: { path } });
  try {
    const crawl = await waitForCrawl(second, id!);
    expect(crawl).toMatchObject({ status: "completed", sitemap_urls: 5, orphan_pages: 3, broken_links: 1 });
    const orphans = await readAll(second, `/crawls/${id!}/orphans`);
    expect(orphans.map((o) => `${new URL(o.url).pathname} ${o.status_code}`).sort()).toEqual(["/missing 404", "/orphan-1 200", "/orphan-2 200"]);
    const sitemapLinks = (await readAll(second, `/crawls/${id!}/links`)).filter((link) => link.kind === "sitemap");
    expect(sitemapLinks).toHaveLength(5);
    expect(site.requests.filter((line) => line === "GET /sitemap.xml")).toHaveLength(1);
  } finally {
    await second.stop();
  }
}, 20_000); // two services started in turn, the second resuming the crawl

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CrawlFlags, type GroundTruthSites, startGroundTruthSites } from "../fixtures/site-generator.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Crawls of the ground-truth site (test/fixtures) through the API, for every combination of the four options,
 * compared with the reference model: the exact totals, and every Link's status_code, is_broken, link_text,
 * kind and source_url. The crawler runs in worker threads, with only 127.0.0.1 allowed, as the issue asks.
 */

const FLAGS = ["scan_images", "scan_scripts", "scan_stylesheets", "follow_external"] as const;

/** All 16 option combinations. */
const COMBINATIONS: CrawlFlags[] = Array.from(
  { length: 16 },
  (_, bits) => Object.fromEntries(FLAGS.map((flag, i) => [flag, (bits & (1 << i)) !== 0])) as unknown as CrawlFlags,
);

/** The crawler's header budget (connect + header) stays below the slow page's delay. */
export const GROUND_TRUTH_CRAWLER = {
  allow_private_networks: false,
  allowed_cidrs: ["127.0.0.1/32"],
  connect_timeout: "400ms",
  header_timeout: "400ms",
  body_timeout: "3s",
};
export const SLOW_DELAY_MS = 1_500;

function label(flags: CrawlFlags): string {
  const on = FLAGS.filter((flag) => flags[flag]);
  return on.length === 0 ? "defaults (anchors, internal only)" : on.join(" + ");
}

const pairKey = (link: { source_url: string; url: string }) => `${link.source_url} → ${link.url}`;

let sites: GroundTruthSites;
let svc: TestService;
let domainId: string;

beforeAll(async () => {
  sites = await startGroundTruthSites({ slowDelayMs: SLOW_DELAY_MS });
  svc = await startTestService({ crawler: GROUND_TRUTH_CRAWLER });
  domainId = await verifiedDomain(svc, sites.rootUrl);
});
afterAll(async () => {
  await svc?.stop();
  await sites?.stop();
});

describe("a crawl of the ground-truth site records exactly what the model says", () => {
  test.each(COMBINATIONS.map((flags) => [label(flags), flags] as const))("%s", async (_, flags) => {
    const want = sites.expected(flags);
    const id = await startCrawl(svc, domainId, { ...flags });
    const crawl = await waitForCrawl(svc, id);

    expect(crawl).toMatchObject({
      status: "completed",
      error: null,
      truncated: false,
      total_links: want.total_links,
      broken_links: want.broken_links,
      pages_crawled: want.pages_crawled,
      skipped_links: want.skipped_links,
    });

    const links = await readAll(svc, `/crawls/${id}/links`);
    const got = new Map(links.map((link) => [pairKey(link), link]));
    expect(got.size).toBe(links.length); // one Link per (source page, target) pair
    const expected = new Map(want.links.map((link) => [pairKey(link), link]));
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, link] of expected) {
      const { url, source_url, status_code, is_broken, link_text, kind } = got.get(key);
      expect({ key, url, source_url, status_code, is_broken, link_text, kind }).toEqual({ key, ...link });
    }

    const broken = await readAll(svc, `/crawls/${id}/broken`);
    expect(broken.map(pairKey).sort()).toEqual(
      want.links
        .filter((link) => link.is_broken)
        .map(pairKey)
        .sort(),
    );
    for (const link of broken) expect(link).not.toHaveProperty("is_broken");
  });
});

describe("what the crawler asked for", () => {
  test("robots-disallowed targets were never fetched", async () => {
    const want = sites.expected({ scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true });
    const requested = new Set([
      ...sites.internal.requests.map((line) => `${sites.internal.origin}${line.split(" ")[1]}`),
      ...sites.external.requests.map((line) => `${sites.external.origin}${line.split(" ")[1]}`),
    ]);
    expect(want.skipped_urls.length).toBeGreaterThan(0);
    for (const url of want.skipped_urls) expect(requested.has(url)).toBe(false);
  });

  // A page reached both directly and through redirects may be fetched by both checks when they run at the same
  // moment; once either is recorded the other is not fetched. Every other target is asked exactly once.
  test("every target is fetched once per crawl: a page with GET, any other target with HEAD (GET only when HEAD is refused)", async () => {
    sites.internal.requests.length = 0;
    sites.external.requests.length = 0;
    const flags = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true };
    const id = await startCrawl(svc, domainId, flags);
    await waitForCrawl(svc, id);
    const links = await readAll(svc, `/crawls/${id}/links`);
    const redirectEnds = new Set(
      links.filter((link) => link.final_url !== null && link.final_url !== link.url).map((link) => `GET ${new URL(link.final_url).pathname}`),
    );
    const requests = [...sites.internal.requests, ...sites.external.requests].filter((line) => !line.endsWith("/robots.txt"));
    const counts = new Map<string, number>();
    for (const line of requests) counts.set(line, (counts.get(line) ?? 0) + 1);
    const repeated = [...counts].filter(([line, n]) => n > (redirectEnds.has(line) ? 2 : 1));
    expect(repeated).toEqual([]);
    // Images are checked without downloading them.
    expect(requests.some((line) => line.startsWith("GET /img/logo.png"))).toBe(false);
  });
});

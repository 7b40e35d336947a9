import type { CheckContext } from "./check-target.ts";
import type { Frontier } from "./frontier.ts";
import { RobotsCache } from "./robots-cache.ts";
import { discoverSitemaps } from "./sitemap-discovery.ts";
import { readSitemap } from "./sitemap-read.ts";

/**
 * The sitemap step (`use_sitemap`), run once the link-reachable pages are crawled, so the entries no page linked
 * to are exactly the orphans. Nothing is recorded when stopped mid-read (a resume reads them again).
 */

/** What the step needs from the crawl run. */
export interface SitemapStepEnv {
  frontier: Frontier;
  context: CheckContext;
  /** The crawl's robots.txt rules, or null when it ignores them (robots.txt is then read for its Sitemap lines only). */
  robots: RobotsCache | null;
  /** Entries an ignore rule excludes: not recorded, counted in `excluded_links`. */
  excluded?: (url: string) => boolean;
}

/** Reads the sitemaps of `site` and records their entries, unless a previous run of the crawl did. */
export async function recordSitemapEntries(crawlId: string, site: URL, env: SitemapStepEnv): Promise<void> {
  // A start page that gave nothing to crawl fails the crawl: every entry would pass for an orphan.
  if ((await env.frontier.sitemapsRecorded(crawlId)) || (await env.frontier.pagesCrawled(crawlId)) === 0) return;
  const { context } = env;
  const signal = context.signal;
  const sitemapLines = env.robots ?? new RobotsCache(context.fetch, context.fetch.userAgent);
  const robots = env.robots;
  const found = await discoverSitemaps(site, {
    robotsSitemaps: () => sitemapLines.sitemaps(site.origin, signal),
    read: (url) => readSitemap(url, { fetch: context.fetch, site: context.site, mayFetch: context.mayFetch, signal }),
    allowed: robots === null ? async () => true : (url) => robots.allows(url, signal),
    signal,
  });
  if (signal.aborted) return;
  const excluded = env.excluded;
  if (excluded === undefined) return env.frontier.recordSitemaps(crawlId, found.lists, found.warnings);
  let left = 0;
  const lists = found.lists.map((list) => {
    const urls = list.urls.filter((url) => !excluded(url));
    left += list.urls.length - urls.length;
    return { ...list, urls };
  });
  await env.frontier.recordSitemaps(crawlId, lists, found.warnings, left);
}

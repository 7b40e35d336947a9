import { cleanPageText } from "../core/visible-text.ts";
import { isInternal, normalizeUrl, type SiteOrigin } from "./normalize.ts";
import { SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS, type SitemapRead } from "./sitemap-read.ts";

/**
 * Finding a site's sitemaps and the pages they list: the Sitemap lines of robots.txt and /sitemap.xml of the
 * crawl's origin, then every sitemap an index names, breadth first. Only sitemaps on the crawled site are read
 * and only entries on it are kept (the protocol lets a sitemap list its own host only, and the crawl's scope
 * is that site). Everything is bounded: sitemaps read, URLs per sitemap, distinct URLs in all; reaching a bound,
 * a sitemap that fails or lists garbage, each becomes a crawl warning, since a silently shorter list would
 * hide exactly the pages the option exists to find.
 */

/** Sitemaps (indexes included) read per crawl at most. */
export const MAX_SITEMAPS = 50;
/** Distinct URLs taken from all sitemaps of a crawl at most. */
export const MAX_SITEMAP_URLS = 100_000;

/** The in-scope URLs one sitemap lists, normalised, each once, in document order. */
export interface SitemapList {
  sitemapUrl: string;
  urls: string[];
}

/** What the sitemaps of a site came to. */
export interface DiscoveredSitemaps {
  lists: SitemapList[];
  warnings: string[];
}

/** How discovery reads: robots.txt's Sitemap lines and one sitemap (sitemap-read.ts), both bound to the crawl. */
export interface SitemapSources {
  robotsSitemaps: () => Promise<readonly string[]>;
  read: (url: string) => Promise<SitemapRead>;
  /** Whether robots.txt lets the crawler fetch `url` (entries it disallows are left out, like any link). */
  allowed: (url: string) => Promise<boolean>;
  signal: AbortSignal;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Reads the sitemaps of the site at `root` and returns the in-scope URLs each lists, with warnings. */
export async function discoverSitemaps(root: URL, sources: SitemapSources): Promise<DiscoveredSitemaps> {
  const site: SiteOrigin = root;
  const warnings: string[] = [];
  const lists: SitemapList[] = [];
  const queue: { url: string; named: boolean }[] = [];
  const seen = new Set<string>();
  const enqueue = (raw: string, base: string, named: boolean, where: string): void => {
    const normalized = normalizeUrl(raw, base);
    if (normalized.kind !== "url") {
      warnings.push(`sitemap ${JSON.stringify(cleanPageText(raw.slice(0, 200)))} named in ${where} is not a valid http(s) URL; not read`);
      return;
    }
    if (seen.has(normalized.url)) return;
    seen.add(normalized.url);
    if (!isInternal(new URL(normalized.url), site)) {
      warnings.push(`sitemap ${normalized.url} named in ${where} is not on the crawled site; not read`);
      return;
    }
    queue.push({ url: normalized.url, named });
  };

  for (const line of await sources.robotsSitemaps()) enqueue(line, `${root.origin}/robots.txt`, true, `${root.origin}/robots.txt`);
  // Read even when robots.txt names others: it is where the protocol says to look first.
  enqueue("/sitemap.xml", root.origin, false, "");

  const taken = new Set<string>();
  let read = 0;
  let outside = 0;
  let invalid = 0;
  let capped = false;
  while (queue.length > 0 && !sources.signal.aborted) {
    if (read >= MAX_SITEMAPS) {
      warnings.push(`more than ${MAX_SITEMAPS} sitemaps: ${plural(queue.length, "sitemap was", "sitemaps were")} not read`);
      break;
    }
    const { url, named } = queue.shift()!;
    read++;
    const result = await sources.read(url);
    if (sources.signal.aborted) break;
    if (result.kind === "failed") {
      // An unnamed /sitemap.xml that is missing is the common case, not a finding.
      if (named) warnings.push(`sitemap ${url} ${result.reason}; its entries were not read`);
      continue;
    }
    const { sitemap, cut } = result;
    if (cut) warnings.push(`sitemap ${url} is longer than ${SITEMAP_MAX_BYTES} bytes; entries past that point were not read`);
    if (sitemap.capped) warnings.push(`sitemap ${url} lists more than ${SITEMAP_MAX_URLS} URLs; the rest were not read`);
    if (sitemap.kind === "unknown") {
      warnings.push(`sitemap ${url} is neither a <urlset> nor a <sitemapindex>; nothing was read from it`);
      continue;
    }
    if (sitemap.kind === "sitemapindex") {
      for (const loc of sitemap.locs) enqueue(loc, url, true, url);
      continue;
    }
    const urls: string[] = [];
    const inThisOne = new Set<string>();
    for (const loc of sitemap.locs) {
      const normalized = normalizeUrl(loc, url);
      if (normalized.kind !== "url") {
        invalid++;
        continue;
      }
      if (!isInternal(new URL(normalized.url), site)) {
        outside++;
        continue;
      }
      if (inThisOne.has(normalized.url)) continue;
      if (!taken.has(normalized.url)) {
        if (taken.size >= MAX_SITEMAP_URLS) {
          capped = true;
          break;
        }
        if (!(await sources.allowed(normalized.url))) continue;
        taken.add(normalized.url);
      }
      inThisOne.add(normalized.url);
      urls.push(normalized.url);
    }
    if (urls.length > 0) lists.push({ sitemapUrl: url, urls });
    if (capped) {
      warnings.push(`the sitemaps list more than ${MAX_SITEMAP_URLS} distinct URLs; the rest were not checked`);
      break;
    }
  }
  if (outside > 0) warnings.push(`${plural(outside, "sitemap entry is", "sitemap entries are")} not on the crawled site; not checked`);
  if (invalid > 0) warnings.push(`${plural(invalid, "sitemap entry is", "sitemap entries are")} not a valid http(s) URL; not checked`);
  return { lists, warnings };
}

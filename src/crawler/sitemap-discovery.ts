import { cleanPageText } from "../core/visible-text.ts";
import { isInternal, normalizeUrl, type SiteOrigin } from "./normalize.ts";
import { WarningTally } from "../core/crawl-warnings.ts";
import { MAX_SITEMAP_URLS, MAX_SITEMAPS } from "../core/sitemap-limits.ts";
import type { SitemapRead } from "./sitemap-read.ts";

/**
 * A site's sitemaps (robots.txt, /sitemap.xml, then indexes breadth first) and the on-site pages they list. Every
 * bound reached and every failed sitemap is a warning, since a silently shorter list hides the pages the option
 * exists to find; at most MAX_SITEMAPS names are held, whatever a hostile index names.
 */

export { MAX_SITEMAPS, MAX_SITEMAP_URLS };

/** The in-scope URLs one sitemap lists, normalised, each once, in document order. */
export interface SitemapList {
  sitemapUrl: string;
  urls: string[];
}

/** What the sitemaps of a site came to. */
export interface DiscoveredSitemaps {
  lists: SitemapList[];
  /** Aggregated per cause as they are found: a hostile index costs a count and a few samples, not a text per name. */
  warnings: WarningTally;
}

/** How discovery reads: robots.txt's Sitemap lines and one sitemap (sitemap-read.ts), both bound to the crawl. */
export interface SitemapSources {
  robotsSitemaps: () => Promise<readonly string[]>;
  read: (url: string) => Promise<SitemapRead>;
  /** Whether robots.txt lets the crawler fetch `url` (entries it disallows are left out, like any link). */
  allowed: (url: string) => Promise<boolean>;
  signal: AbortSignal;
}

/** Reads the sitemaps of the site at `root` and returns the in-scope URLs each lists, with warnings. */
export async function discoverSitemaps(root: URL, sources: SitemapSources): Promise<DiscoveredSitemaps> {
  const site: SiteOrigin = root;
  const warnings = new WarningTally();
  const lists: SitemapList[] = [];
  // Never more than MAX_SITEMAPS names are held (queued or read): a name past that is only counted.
  const queue: { url: string; named: boolean }[] = [];
  const seen = new Set<string>();
  const enqueue = (raw: string, base: string, named: boolean, where: string): void => {
    const normalized = normalizeUrl(raw, base);
    const from = where === "" ? "" : ` in ${where}`;
    if (normalized.kind !== "url") {
      warnings.add({ cause: "sitemap_name_invalid", sample: `${JSON.stringify(cleanPageText(raw.slice(0, 200)))}${from}` });
      return;
    }
    if (!isInternal(new URL(normalized.url), site)) {
      warnings.add({ cause: "sitemap_off_site", sample: `${normalized.url}${from}` });
      return;
    }
    if (seen.has(normalized.url)) return;
    if (seen.size >= MAX_SITEMAPS) {
      warnings.add({ cause: "sitemaps_over_limit" });
      return;
    }
    seen.add(normalized.url);
    queue.push({ url: normalized.url, named });
  };

  for (const line of await sources.robotsSitemaps()) enqueue(line, `${root.origin}/robots.txt`, true, `${root.origin}/robots.txt`);
  // Read even when robots.txt names others: it is where the protocol says to look first.
  enqueue("/sitemap.xml", root.origin, false, "");

  const taken = new Set<string>();
  let capped = false;
  // Bounded: at most MAX_SITEMAPS names are ever queued (enqueue).
  while (queue.length > 0 && !sources.signal.aborted) {
    const { url, named } = queue.shift()!;
    const result = await sources.read(url);
    if (sources.signal.aborted) break;
    if (result.kind === "failed") {
      // An unnamed /sitemap.xml that is missing is the common case, not a finding.
      if (named) warnings.add({ cause: "sitemap_failed", sample: `${url} ${result.reason}` });
      continue;
    }
    const { sitemap, cut } = result;
    if (cut) warnings.add({ cause: "sitemap_cut", sample: url });
    if (sitemap.capped) warnings.add({ cause: "sitemap_url_limit", sample: url });
    if (sitemap.stopped !== undefined) warnings.add({ cause: sitemap.stopped === "too_deep" ? "sitemap_too_deep" : "sitemap_too_slow", sample: url });
    if (sitemap.kind === "unknown") {
      warnings.add({ cause: "sitemap_not_a_sitemap", sample: url });
      continue;
    }
    if (sitemap.locs.length === 0) warnings.add({ cause: "sitemap_empty", sample: url });
    if (sitemap.kind === "sitemapindex") {
      for (const loc of sitemap.locs) enqueue(loc, url, true, url);
      continue;
    }
    const urls: string[] = [];
    const inThisOne = new Set<string>();
    for (const loc of sitemap.locs) {
      const normalized = normalizeUrl(loc, url);
      if (normalized.kind !== "url") {
        warnings.add({ cause: "sitemap_entries_invalid", sample: loc.slice(0, 200) });
        continue;
      }
      if (!isInternal(new URL(normalized.url), site)) {
        warnings.add({ cause: "sitemap_entries_off_site", sample: normalized.url });
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
      warnings.add({ cause: "sitemap_entries_over_limit" });
      break;
    }
  }
  return { lists, warnings };
}

import type { CrawlOptions } from "./crawl-options.ts";

/**
 * A crawl's options in words, for the places that show what a crawl ran with (the dashboard's crawl page,
 * `check`'s text, markdown and JUnit reports): which kinds of link were checked, where, and which extra checks
 * ran. Two crawls of one site with different options find different things; a reader must see which.
 */

const KINDS: [keyof CrawlOptions, string][] = [
  ["scan_images", "images"],
  ["scan_scripts", "scripts"],
  ["scan_stylesheets", "stylesheets"],
  ["scan_media", "media"],
];

const EXTRAS: [keyof CrawlOptions, string][] = [
  ["check_fragments", "#fragments"],
  ["use_sitemap", "sitemaps"],
  ["soft_404_broken", "soft 404s as broken"],
];

/** E.g. "anchors, images; internal and external links; #fragments", or "anchors only; internal links only". */
export function describeOptions(options: CrawlOptions): string {
  const kinds = KINDS.filter(([flag]) => options[flag]).map(([, name]) => name);
  const parts = [
    kinds.length === 0 ? "anchors only" : ["anchors", ...kinds].join(", "),
    options.follow_external ? "internal and external links" : "internal links only",
  ];
  const extras = EXTRAS.filter(([flag]) => options[flag]).map(([, name]) => name);
  if (extras.length > 0) parts.push(extras.join(", "));
  return parts.join("; ");
}

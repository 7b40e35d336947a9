import type { StoredLinkKind } from "./link-kind.ts";

/**
 * Every crawl option in one table, from which the schema, defaults, CLI flags, dashboard and summaries are
 * derived: a new option is a row here. Free of zod: crawl workers read it.
 */

/** One crawl option; every option is a flag, off unless asked for. */
interface CrawlOptionRow {
  /** What it does, for the API's schema. */
  description: string;
  /** The dashboard's checkbox label. */
  label: string;
  /** `linkpatrol check`'s flag (without `--`) and its help text. */
  flag: string;
  help: string;
  /** Whether `check --all` turns it on. */
  inAll: boolean;
  /** The stored link kind whose links only this option lets through; null when it gates no kind. */
  kind: StoredLinkKind | null;
  /** How a crawl's options are told in words: a kind of link checked, an extra check, or its own wording (null). */
  summary: { kind: string } | { extra: string } | null;
}

export const CRAWL_OPTION_TABLE = {
  scan_images: {
    description: "Check images: img, srcset candidates, picture sources, icons, video posters.",
    label: "Check images",
    flag: "images",
    help: "also check images",
    inAll: true,
    kind: "image",
    summary: { kind: "images" },
  },
  scan_scripts: {
    description: "Check scripts (script src, module preloads).",
    label: "Check scripts",
    flag: "scripts",
    help: "also check scripts",
    inAll: true,
    kind: "script",
    summary: { kind: "scripts" },
  },
  scan_stylesheets: {
    description: "Stylesheet links, and the URLs inside the site's CSS: its stylesheets, `<style>` blocks, `style` attributes.",
    label: "Check stylesheets (and URLs in CSS)",
    flag: "stylesheets",
    help: "also check stylesheets and the URLs in the site's CSS",
    inAll: true,
    kind: "stylesheet",
    summary: { kind: "stylesheets" },
  },
  follow_external: {
    description: "Check links to other hosts too (never crawled further).",
    label: "Check external links",
    flag: "external",
    help: "also check links to other hosts",
    inAll: true,
    kind: null,
    summary: null,
  },
  scan_media: {
    description: "video/audio and their sources, track, embed, object data, media preloads.",
    label: "Check video, audio and embeds",
    flag: "media",
    help: "also check video, audio, tracks, embeds and objects",
    inAll: true,
    kind: "media",
    summary: { kind: "media" },
  },
  check_fragments: {
    description: "Fragments (`page.html#section`) of internal HTML pages are checked against the ids of the page.",
    label: "Check #fragments of internal pages",
    flag: "fragments",
    help: "check #fragments of internal pages against the ids of the page",
    inAll: false,
    kind: null,
    summary: { extra: "#fragments" },
  },
  use_sitemap: {
    description: "Read robots.txt's Sitemap lines and /sitemap.xml: check every page they list, find the orphan pages.",
    label: "Use the sitemap (find orphan pages)",
    flag: "sitemap",
    help: "also check the pages robots.txt's sitemaps and /sitemap.xml list; report orphan pages",
    inAll: false,
    kind: "sitemap",
    summary: { extra: "sitemaps" },
  },
  soft_404_broken: {
    description: `Pages detected as soft 404s (the site's "not found" page answered with 200) count as broken links.`,
    label: "Count soft 404s as broken",
    flag: "soft-404-broken",
    help: `count soft 404s (pages that are the site's "not found" page, answered 200) as broken`,
    inAll: false,
    kind: null,
    summary: { extra: "soft 404s as broken" },
  },
} as const satisfies Record<string, CrawlOptionRow>;

export type CrawlOptionName = keyof typeof CRAWL_OPTION_TABLE;
export type CrawlOptionFlag = (typeof CRAWL_OPTION_TABLE)[CrawlOptionName]["flag"];

/** The options in the table's order, with their rows. */
export const CRAWL_OPTION_ROWS = Object.entries(CRAWL_OPTION_TABLE) as [CrawlOptionName, CrawlOptionRow & { flag: CrawlOptionFlag }][];

/** Which option lets a kind of link through (null: always checked, as anchors are). */
export const OPTION_OF_KIND: Readonly<Record<StoredLinkKind, CrawlOptionName | null>> = (() => {
  const table: Record<string, CrawlOptionName | null> = { anchor: null };
  for (const [name, row] of CRAWL_OPTION_ROWS) if (row.kind !== null) table[row.kind] = name;
  return table as Record<StoredLinkKind, CrawlOptionName | null>;
})();

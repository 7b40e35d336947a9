/**
 * A deterministic synthetic web site for the crawl benchmark, with its ground truth.
 *
 * Everything derives from (pages, seed): the page graph, every page's links, the HTML filler and which
 * targets are broken. Nothing is held per page: a page's HTML is rebuilt from the seed when it is asked for
 * (bench/site/server.ts keeps a small cache), so a 10,000-page site costs a few hundred KiB of memory. The
 * same `route()` answers the HTTP server and the ground-truth walk, so what is served and what is expected
 * cannot drift apart.
 *
 * Two origins on 127.0.0.1: `main` (the crawled domain) and `external` (another port: "another host" by
 * CONTRACT's same-host-and-port rule).
 *
 * Main origin, N pages (N >= 100; page 0 is "/", page i is /docs/s<i % 16>/page-<i>.html), each page 10–40
 * KiB of HTML holding 40–80 link occurrences:
 *   head    /static/site.css, /static/theme-<i % 16>.css (theme-13.css answers 404), /static/app.js,
 *           EXTERNAL/cdn/lib.js, and on every 50th page /static/legacy.js (404); a <link rel="icon"> that
 *           is not a link to check.
 *   nav     "#main" (the page itself), "/", the 10 section pages 1..10 (repeated on every page).
 *   body    "up" to the parent page, the page's children in an 8-ary tree (so every page is reachable
 *           breadth-first from "/", depth <= log8 N + 1), random content links to other pages (some twice,
 *           some with a #fragment), 2–8 images from a pool /img/photo-<k>.png (every k % 31 == 5 answers 404),
 *           1–3 links to external pages EXTERNAL/ext/page-<k>.html (k % 25 == 3: 404, k % 25 == 11: 410),
 *           and at most one "special" link, spread over the site by a permutation of page numbers:
 *             - broken pages (round(brokenFraction * N) of them, each linked from 2 pages): /missing/ (404),
 *               /gone/ (410), /error/ (500);
 *             - redirect chains /old/page-<k>.html -301-> /moved/page-<k>.html -302-> a page;
 *             - /old/removed.html -301-> /moved/removed.html -301-> /missing/removed.html (404);
 *             - /out/partner.html -302-> EXTERNAL/ext/page-0.html (an internal link ending outside);
 *             - the redirect loop /loop/a.html -302-> /loop/b.html -302-> /loop/a.html (no answer: broken);
 *             - /private/page-<k>.html, disallowed by robots.txt (neither fetched nor recorded).
 *   footer  /sitemap.xml (200, not HTML), "/#top"; on every 7th page EXTERNAL/badges/ok.png, on every 97th
 *           EXTERNAL/badges/old.png (404).
 * A few pages (`slowPages`, default 3) hold their answer `slowDelayMs` (default 2 s) before answering 200.
 * Error answers are HTML with a link (/trap/from-error-page.html) that a crawler must not follow: error pages
 * are never parsed. robots.txt disallows /private/ and names the sitemap; the external origin allows all.
 *
 * Ground truth (`groundTruth(flags)`) walks the site the way CONTRACT "Crawls and links" describes a crawl:
 * breadth-first from "/" over internal pages that answer 2xx HTML (pages_crawled counts them); per page, its
 * links in document order, kept when their kind is on (anchors always; images, scripts, stylesheets by their
 * option) and they are internal or follow_external is on; robots-disallowed targets are counted in
 * skipped_links (distinct URLs) and nothing else; the first occurrence of each (page, target) pair is one Link.
 * A target's status is its final answer after at most 10 redirects; a loop is no answer (status 0). Broken:
 * status >= 400 or no answer (the site has no bot-wall statuses, so CONTRACT's external 401/403/429/999
 * exception never applies). An anchor ending on an internal 2xx HTML page queues that page, once, under its
 * final URL.
 */

/** What a link points at (CONTRACT "Crawls and links": `kind`). */
export type LinkKind = "anchor" | "image" | "script" | "stylesheet";

/** The crawl options of POST /crawls. */
export interface CrawlFlags {
  scan_images: boolean;
  scan_scripts: boolean;
  scan_stylesheets: boolean;
  follow_external: boolean;
}

/** The option sets the benchmark knows by name. */
export const OPTION_SETS = {
  /** The spec's defaults: anchors only, internal only. */
  default: { scan_images: false, scan_scripts: false, scan_stylesheets: false, follow_external: false },
  /** Every scan option and follow_external. */
  all: { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true },
} as const satisfies Record<string, CrawlFlags>;

export type OptionSetName = keyof typeof OPTION_SETS;

/** Knobs of the site; every one has a default. */
export interface SiteOptions {
  /** Pages of the main origin, "/" included; default 10,000, at least 100. */
  pages?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /** How long a slow page holds its answer, in ms; default 2,000. */
  slowDelayMs?: number;
  /** How many pages are slow; default 3. */
  slowPages?: number;
  /** Broken internal pages as a fraction of N; default 0.03. */
  brokenFraction?: number;
}

/** The two origins, "http://127.0.0.1:PORT", known once the servers listen. */
export interface SiteOrigins {
  main: string;
  external: string;
}

/** One link as written in a page, in document order. */
export interface PageLink {
  kind: LinkKind;
  /** The href/src as written (absolute, root-relative or a bare #fragment). */
  href: string;
  /** The link text a crawler reports: anchor text or an image's alt; "" for scripts and stylesheets. */
  text: string;
}

/** What the site answers to one request. */
export interface RouteAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body (not sent to HEAD). */
  body: () => string;
  /** Hold the answer for slowDelayMs first. */
  slow: boolean;
  /** Main-origin page number when this is a generated page. */
  page?: number;
}

/** What a crawl with some options must end with. */
export interface GroundTruth {
  flags: CrawlFlags;
  pages_crawled: number;
  total_links: number;
  broken_links: number;
  /** Distinct robots-disallowed targets after gating. */
  skipped_links: number;
  /** Distinct target URLs recorded. */
  distinct_targets: number;
  /** Distinct broken target URLs, sorted. */
  broken_urls: string[];
  /** Link occurrences on the crawled pages before gating and dedupe. */
  link_occurrences: number;
  /** Deepest page (links from "/"). */
  max_depth: number;
}

/** What checking one target URL comes to. */
export interface TargetOutcome {
  /** Final status after redirects; 0 without an answer. */
  status: number;
  /** Where the redirects ended; null without an answer. */
  finalUrl: string | null;
  /** The final answer is HTML. */
  html: boolean;
  /** Redirects followed. */
  hops: number;
  /** Why there was no answer. */
  error: "redirect_loop" | "too_many_redirects" | null;
}

/** Redirects followed before "too many redirects" (src/crawler/check-target.ts). */
export const MAX_REDIRECTS = 10;

export const DEFAULT_PAGES = 10_000;
export const DEFAULT_SEED = 1;
export const DEFAULT_SLOW_DELAY_MS = 2_000;

const SECTIONS = 16;
const NAV_PAGES = 10;
const FANOUT = 8;
const BROKEN_THEME = 13;
const PRIVATE_PAGES = 3;
const MIN_PAGE_BYTES = 10 * 1024;
const MAX_PAGE_BYTES = 40 * 1024;
const MIN_LINKS = 40;
const MAX_LINKS = 80;
const CORPUS_CHARS = 512 * 1024;

const HTML = "text/html; charset=utf-8";

// ---------------------------------------------------------------------------------------------------------
// Deterministic randomness: a 32-bit mixer for seeds and mulberry32 streams (no Math.random anywhere).

/** A well-mixed 32-bit hash of a few integers. */
export function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A mulberry32 stream. */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

const WORDS = (
  "link check page site crawl server network domain broken anchor image script style sheet report status " +
  "redirect robots sitemap archive article section chapter guide manual release note change update install " +
  "configure deploy monitor backup restore service process thread worker queue store table index query " +
  "request response header body cache proxy gateway router switch cable rack power cooling storage volume " +
  "partition kernel module driver firmware package library framework runtime compiler build test bench " +
  "measure latency throughput memory disk file folder path name value key token secret policy rule limit " +
  "quota retry timeout delay window budget plan schedule cron daily weekly nightly audit review follow " +
  "the a of to and in for on with by from about over under between into through during before after"
).split(" ");

// ---------------------------------------------------------------------------------------------------------

/** A page being laid out: HTML pieces, links (each with its HTML) and filler slots, in document order. */
type Piece = { t: "html"; s: string } | { t: "link"; link: PageLink; s: string } | { t: "fill" };

/** The synthetic site over two origins; see the file header. */
export class SyntheticSite {
  readonly pages: number;
  readonly seed: number;
  readonly slowDelayMs: number;
  readonly rootUrl: string;
  /** Broken pages (/missing, /gone, /error). */
  readonly brokenPages: number;
  readonly redirectChains: number;
  readonly images: number;
  readonly externalPages: number;
  readonly slowPageIds: readonly number[];
  private readonly slowSet: ReadonlySet<number>;
  private readonly permA: number;
  private readonly permC: number;
  /** Start of each special-link range in permuted page order. */
  private readonly ranges: { broken: number; chains: number; loop: number; removed: number; partner: number; priv: number; end: number };
  private readonly corpus: string;
  private sitemapCache: string | null = null;

  constructor(
    readonly origins: SiteOrigins,
    options: SiteOptions = {},
  ) {
    this.pages = options.pages ?? DEFAULT_PAGES;
    this.seed = options.seed ?? DEFAULT_SEED;
    this.slowDelayMs = options.slowDelayMs ?? DEFAULT_SLOW_DELAY_MS;
    if (!Number.isInteger(this.pages) || this.pages < 100) throw new Error("synthetic site: pages must be an integer >= 100");
    this.rootUrl = `${origins.main}/`;
    const n = this.pages;
    this.brokenPages = Math.max(3, Math.round((options.brokenFraction ?? 0.03) * n));
    this.redirectChains = Math.max(4, Math.round(n / 500));
    this.images = Math.max(31, Math.round(n / 10));
    this.externalPages = Math.max(25, Math.round(n / 50));

    const slowCount = Math.min(options.slowPages ?? 3, Math.floor(n / 10));
    const slow: number[] = [];
    for (let k = 0; k < slowCount; k++) slow.push(NAV_PAGES + 1 + Math.floor(((k + 1) * (n - NAV_PAGES - 1)) / (slowCount + 1)));
    this.slowPageIds = slow;
    this.slowSet = new Set(slow);

    let a = 7919 + (hash32(this.seed, 1) % 1000);
    while (gcd(a, n) !== 1) a++;
    this.permA = a;
    this.permC = hash32(this.seed, 2) % n;
    const broken = 0;
    const chains = broken + 2 * this.brokenPages;
    const loop = chains + 2 * this.redirectChains;
    const removed = loop + 3;
    const partner = removed + 2;
    const priv = partner + 2;
    const end = priv + 2 * PRIVATE_PAGES;
    if (end > n) throw new Error(`synthetic site: ${n} pages are too few for ${end} special links`);
    this.ranges = { broken, chains, loop, removed, partner, priv, end };

    const rng = new Prng(hash32(this.seed, 3));
    const words: string[] = [];
    let length = 0;
    while (length < CORPUS_CHARS) {
      const word = rng.pick(WORDS);
      words.push(word);
      length += word.length + 1;
    }
    this.corpus = words.join(" ");
  }

  // ---- URL space ----------------------------------------------------------------------------------------

  /** The path of page `i`. */
  pagePath(i: number): string {
    return i === 0 ? "/" : `/docs/s${i % SECTIONS}/page-${i}.html`;
  }

  pageUrl(i: number): string {
    return `${this.origins.main}${this.pagePath(i)}`;
  }

  isSlowPage(i: number): boolean {
    return this.slowSet.has(i);
  }

  /** The path of broken page k: 404, 410 or 500 by k % 3. */
  brokenPath(k: number): string {
    return `/${["missing", "gone", "error"][k % 3]}/page-${k}.html`;
  }

  /** The page redirect chain k ends on. */
  chainTarget(k: number): number {
    return 1 + (hash32(this.seed, 4, k) % (this.pages - 1));
  }

  private parent(i: number): number {
    return Math.floor((i - 1) / FANOUT);
  }

  private perm(i: number): number {
    return (this.permA * i + this.permC) % this.pages;
  }

  private ext(path: string): string {
    return `${this.origins.external}${path}`;
  }

  /** The special link of page i (see the file header), or null. */
  private special(i: number): PageLink | null {
    const j = this.perm(i);
    const r = this.ranges;
    if (j < r.chains) {
      const k = (j - r.broken) % this.brokenPages;
      return { kind: "anchor", href: this.brokenPath(k), text: `Old notes ${k}` };
    }
    if (j < r.loop) {
      const k = (j - r.chains) % this.redirectChains;
      return { kind: "anchor", href: `/old/page-${k}.html`, text: `Archived page ${k}` };
    }
    if (j < r.removed) return { kind: "anchor", href: "/loop/a.html", text: "Circular reference" };
    if (j < r.partner) return { kind: "anchor", href: "/old/removed.html", text: "Removed article" };
    if (j < r.priv) return { kind: "anchor", href: "/out/partner.html", text: "Our partner" };
    if (j < r.end) {
      const k = (j - r.priv) % PRIVATE_PAGES;
      return { kind: "anchor", href: `/private/page-${k}.html`, text: `Staff only ${k}` };
    }
    return null;
  }

  // ---- pages --------------------------------------------------------------------------------------------

  /** Page i's pieces, in document order; depends only on (seed, i). */
  private layout(i: number): { pieces: Piece[]; targetBytes: number } {
    const rng = new Prng(hash32(this.seed, 5, i));
    const n = this.pages;
    const pieces: Piece[] = [];
    const html = (s: string) => pieces.push({ t: "html", s });
    const fill = () => pieces.push({ t: "fill" });
    const anchor = (href: string, text: string): Piece => ({ t: "link", link: { kind: "anchor", href, text }, s: `<a href="${href}">${text}</a>` });
    const add = (piece: Piece) => pieces.push(piece);

    const section = i % SECTIONS;
    const title = i === 0 ? "Welcome" : i <= NAV_PAGES ? `Section ${i}` : `Page ${i}`;
    html(`<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title} - Example Docs</title>\n`);
    html(`<meta name="viewport" content="width=device-width, initial-scale=1">\n<link rel="icon" href="/favicon.ico">\n`);
    const css = (href: string): Piece => ({ t: "link", link: { kind: "stylesheet", href, text: "" }, s: `<link rel="stylesheet" href="${href}">\n` });
    const js = (href: string): Piece => ({ t: "link", link: { kind: "script", href, text: "" }, s: `<script src="${href}" defer></script>\n` });
    add(css("/static/site.css"));
    add(css(`/static/theme-${section}.css`));
    add(js("/static/app.js"));
    add(js(this.ext("/cdn/lib.js")));
    if (i % 50 === 17) add(js("/static/legacy.js"));
    html(`</head>\n<body>\n<header>\n`);
    add(anchor("#main", "Skip to content"));
    html(`\n<nav>\n<ul>\n`);
    for (const [href, text] of [["/", "Home"], ...Array.from({ length: NAV_PAGES }, (_, k) => [this.pagePath(k + 1), `Section ${k + 1}`])] as [string, string][]) {
      html("<li>");
      add(anchor(href, text));
      html("</li>\n");
    }
    html(`</ul>\n</nav>\n</header>\n<main id="main">\n<h1>${title}</h1>\n`);
    if (i > 0) {
      const p = this.parent(i);
      html(`<p class="crumbs">`);
      add(anchor(this.pagePath(p), p === 0 ? "Up: Home" : `Up: Page ${p}`));
      html(`</p>\n`);
    }

    // The article: content links, images, external links and the special link, shuffled into paragraphs.
    const children: number[] = [];
    for (let c = FANOUT * i + 1; c <= FANOUT * i + FANOUT && c < n; c++) children.push(c);
    const special = this.special(i);
    const imageCount = rng.int(2, 8);
    const externalCount = rng.int(1, 3);
    const footerCount = 2 + (i % 7 === 0 ? 1 : 0) + (i % 97 === 0 ? 1 : 0);
    const fixed = pieces.filter((p) => p.t === "link").length + children.length + (special ? 1 : 0) + imageCount + externalCount + footerCount;
    const wanted = rng.int(MIN_LINKS, MAX_LINKS);
    const contentCount = Math.max(3, wanted - fixed);

    const items: Piece[] = [];
    const content: PageLink[] = [];
    for (let k = 0; k < contentCount; k++) {
      const roll = rng.next();
      if (roll < 0.1 && content.length > 0) {
        // The same target again, as a "read more".
        const again = rng.pick(content);
        items.push(anchor(again.href, "read more"));
        continue;
      }
      const target = rng.int(1, n - 1);
      const href = roll < 0.2 ? `${this.pagePath(target)}#sec-${rng.int(1, 3)}` : this.pagePath(target);
      const link = { kind: "anchor" as const, href, text: `Page ${target}` };
      content.push(link);
      items.push(anchor(href, link.text));
    }
    for (let k = 0; k < imageCount; k++) {
      const img = rng.int(0, this.images - 1);
      const href = `/img/photo-${img}.png`;
      items.push({ t: "link", link: { kind: "image", href, text: `Photo ${img}` }, s: `<img src="${href}" alt="Photo ${img}" width="640" height="480">` });
    }
    for (let k = 0; k < externalCount; k++) {
      const e = rng.int(0, this.externalPages - 1);
      items.push(anchor(this.ext(`/ext/page-${e}.html`), `Partner article ${e}`));
    }
    if (special) items.push(anchor(special.href, special.text));
    rng.shuffle(items);

    let heading = 1;
    for (let k = 0; k < items.length; ) {
      if (k % 9 === 0) html(`<h2 id="sec-${heading}">Part ${heading++}</h2>\n`);
      const take = Math.min(items.length - k, rng.int(1, 3));
      html("<p>");
      for (let m = 0; m < take; m++) {
        fill();
        html(" ");
        add(items[k + m]!);
        html(" ");
      }
      fill();
      html("</p>\n");
      k += take;
    }
    if (children.length > 0) {
      html(`<section class="related">\n<h2>In this section</h2>\n<ul>\n`);
      for (const c of children) {
        html("<li>");
        add(anchor(this.pagePath(c), `Page ${c}`));
        html("</li>\n");
      }
      html("</ul>\n</section>\n");
    }
    html(`</main>\n<footer>\n<p>`);
    fill();
    html("</p>\n");
    add(anchor("/sitemap.xml", "Sitemap"));
    html(" | ");
    add(anchor("/#top", "Top"));
    html("\n");
    if (i % 7 === 0) {
      const href = this.ext("/badges/ok.png");
      add({ t: "link", link: { kind: "image", href, text: "Status badge" }, s: `<img src="${href}" alt="Status badge">` });
    }
    if (i % 97 === 0) {
      const href = this.ext("/badges/old.png");
      add({ t: "link", link: { kind: "image", href, text: "Old badge" }, s: `<img src="${href}" alt="Old badge">` });
    }
    html(`\n</footer>\n</body>\n</html>\n`);
    return { pieces, targetBytes: rng.int(MIN_PAGE_BYTES, MAX_PAGE_BYTES) };
  }

  /** Page i's links in document order, duplicates included (no HTML is built). */
  pageLinks(i: number): PageLink[] {
    const links: PageLink[] = [];
    for (const piece of this.layout(i).pieces) if (piece.t === "link") links.push(piece.link);
    return links;
  }

  /** Page i's HTML: the layout with filler text so the page is 10–40 KiB (ASCII, so chars = bytes). */
  pageHtml(i: number): string {
    const { pieces, targetBytes } = this.layout(i);
    let fixedChars = 0;
    let slots = 0;
    for (const piece of pieces) {
      if (piece.t === "fill") slots++;
      else fixedChars += piece.s.length;
    }
    const budget = Math.max(0, targetBytes - fixedChars);
    const rng = new Prng(hash32(this.seed, 6, i));
    const out: string[] = [];
    let slot = 0;
    for (const piece of pieces) {
      if (piece.t !== "fill") {
        out.push(piece.s);
        continue;
      }
      const size = slot === slots - 1 ? budget - Math.floor(budget / slots) * (slots - 1) : Math.floor(budget / slots);
      slot++;
      out.push(this.filler(rng, size));
    }
    return out.join("");
  }

  /** `size` characters of words from the corpus (never an HTML special character). */
  private filler(rng: Prng, size: number): string {
    if (size <= 0) return "";
    const start = Math.floor(rng.next() * (this.corpus.length - size - 1));
    return this.corpus.slice(start, start + size);
  }

  private robotsTxt(): string {
    return `# Synthetic benchmark site\nUser-agent: *\nDisallow: /private/\n\nSitemap: ${this.origins.main}/sitemap.xml\n`;
  }

  private sitemapXml(): string {
    if (this.sitemapCache === null) {
      const rows: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'];
      for (let i = 0; i < this.pages; i++) rows.push(`<url><loc>${this.pageUrl(i)}</loc></url>\n`);
      rows.push("</urlset>\n");
      this.sitemapCache = rows.join("");
    }
    return this.sitemapCache;
  }

  /** Parses "/docs/s<sec>/page-<i>.html" (or "/") into a page number, or null. */
  pageNumber(path: string): number | null {
    if (path === "/") return 0;
    const m = /^\/docs\/s(\d+)\/page-(\d+)\.html$/.exec(path);
    if (m === null) return null;
    const i = Number(m[2]);
    if (i < 1 || i >= this.pages || Number(m[1]) !== i % SECTIONS || this.pagePath(i) !== path) return null;
    return i;
  }

  // ---- routing: the one table both the server and the ground truth read ---------------------------------

  /** What `origin` ("main" or "external") answers for `path` (pathname + search). */
  route(origin: "main" | "external", path: string): RouteAnswer {
    const ok = (type: string, body: () => string, extra: Partial<RouteAnswer> = {}): RouteAnswer => ({
      status: 200,
      headers: { "content-type": type },
      body,
      slow: false,
      ...extra,
    });
    const redirect = (status: number, location: string): RouteAnswer => ({
      status,
      headers: { location, "content-type": HTML },
      body: () => `<html><body><a href="${location}">Moved</a></body></html>\n`,
      slow: false,
    });
    const error = (status: number): RouteAnswer => ({
      status,
      headers: { "content-type": HTML },
      // Error pages are never parsed: a crawler that did would record this link and miss the totals.
      body: () => `<!DOCTYPE html>\n<html><head><title>${status}</title></head><body><h1>Error ${status}</h1>\n<p><a href="/trap/from-error-page.html">Try this instead</a></p></body></html>\n`,
      slow: false,
    });
    const numbered = (re: RegExp, limit: number): number | null => {
      const m = re.exec(path);
      if (m === null) return null;
      const k = Number(m[1]);
      return k < limit && String(k) === m[1] ? k : null;
    };

    if (origin === "external") {
      if (path === "/robots.txt") return ok("text/plain", () => "User-agent: *\nAllow: /\n");
      const e = numbered(/^\/ext\/page-(\d+)\.html$/, this.externalPages);
      if (e !== null) {
        if (e % 25 === 3) return error(404);
        if (e % 25 === 11) return error(410);
        return ok(HTML, () => `<!DOCTYPE html>\n<html><head><title>Partner ${e}</title></head><body><p>Partner article ${e}.</p><a href="/ext/page-${(e + 1) % this.externalPages}.html">next</a></body></html>\n`);
      }
      if (path === "/cdn/lib.js") return ok("application/javascript", () => "/* lib */\n");
      if (path === "/badges/ok.png") return ok("image/png", () => "PNG");
      return error(404);
    }

    const page = this.pageNumber(path);
    if (page !== null) return ok(HTML, () => this.pageHtml(page), { slow: this.slowSet.has(page), page });
    if (path === "/robots.txt") return ok("text/plain", () => this.robotsTxt());
    if (path === "/sitemap.xml") return ok("application/xml", () => this.sitemapXml());
    if (path === "/favicon.ico") return ok("image/x-icon", () => "ICO");
    if (path === "/static/site.css") return ok("text/css", () => "body{margin:0}\n");
    if (path === "/static/app.js") return ok("application/javascript", () => "/* app */\n");
    const theme = numbered(/^\/static\/theme-(\d+)\.css$/, SECTIONS);
    if (theme !== null) return theme === BROKEN_THEME ? error(404) : ok("text/css", () => `/* theme ${theme} */\n`);
    const img = numbered(/^\/img\/photo-(\d+)\.png$/, this.images);
    if (img !== null) return img % 31 === 5 ? error(404) : ok("image/png", () => "PNG");
    const broken = numbered(/^\/(?:missing|gone|error)\/page-(\d+)\.html$/, this.brokenPages);
    if (broken !== null && path === this.brokenPath(broken)) return error([404, 410, 500][broken % 3]!);
    const chain = numbered(/^\/old\/page-(\d+)\.html$/, this.redirectChains);
    if (chain !== null) return redirect(301, `/moved/page-${chain}.html`);
    const moved = numbered(/^\/moved\/page-(\d+)\.html$/, this.redirectChains);
    if (moved !== null) return redirect(302, this.pagePath(this.chainTarget(moved)));
    if (path === "/old/removed.html") return redirect(301, "/moved/removed.html");
    if (path === "/moved/removed.html") return redirect(301, "/missing/removed.html");
    if (path === "/out/partner.html") return redirect(302, this.ext("/ext/page-0.html"));
    if (path === "/loop/a.html") return redirect(302, "/loop/b.html");
    if (path === "/loop/b.html") return redirect(302, "/loop/a.html");
    const priv = numbered(/^\/private\/page-(\d+)\.html$/, PRIVATE_PAGES);
    if (priv !== null) return ok(HTML, () => `<!DOCTYPE html>\n<html><body><p>Staff only.</p><a href="/private/page-${(priv + 1) % PRIVATE_PAGES}.html">next</a></body></html>\n`);
    return error(404);
  }

  /** The origin name and path of an absolute URL on one of the two origins. */
  private locate(url: string): { origin: "main" | "external"; path: string } {
    for (const origin of ["main", "external"] as const) {
      const prefix = this.origins[origin];
      if (url.startsWith(`${prefix}/`)) {
        const path = url.slice(prefix.length);
        const hash = path.indexOf("#");
        return { origin, path: hash === -1 ? path : path.slice(0, hash) };
      }
    }
    throw new Error(`synthetic site: ${url} is on neither origin`);
  }

  /** True for a URL on the main origin (normalised, as resolveHref returns). */
  isInternal(url: string): boolean {
    return url.startsWith(`${this.origins.main}/`);
  }

  /** True when robots.txt of the URL's origin disallows it (only /private/ on the main origin). */
  isDisallowed(url: string): boolean {
    return url.startsWith(`${this.origins.main}/private/`);
  }

  /** Follows redirects from `url` to its final answer, as a crawler would. */
  outcome(url: string): TargetOutcome {
    const seen = new Set<string>();
    let current = url;
    for (let hops = 0; hops <= MAX_REDIRECTS; hops++) {
      if (seen.has(current)) return { status: 0, finalUrl: null, html: false, hops, error: "redirect_loop" };
      seen.add(current);
      const { origin, path } = this.locate(current);
      const answer = this.route(origin, path);
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location !== undefined) {
        current = resolveHref(location, current);
        continue;
      }
      return { status: answer.status, finalUrl: current, html: answer.headers["content-type"]?.startsWith("text/html") ?? false, hops, error: null };
    }
    return { status: 0, finalUrl: null, html: false, hops: MAX_REDIRECTS, error: "too_many_redirects" };
  }

  /** Counts of the site's building blocks, for reports. */
  describe(): Record<string, number> {
    return {
      pages: this.pages,
      seed: this.seed,
      slow_delay_ms: this.slowDelayMs,
      slow_pages: this.slowPageIds.length,
      broken_pages: this.brokenPages,
      redirect_chains: this.redirectChains,
      images: this.images,
      external_pages: this.externalPages,
      private_pages: PRIVATE_PAGES,
    };
  }

  /** What a crawl from "/" with `flags` must end with (see the file header). */
  groundTruth(flags: CrawlFlags): GroundTruth {
    const kindOn: Record<LinkKind, boolean> = {
      anchor: true,
      image: flags.scan_images,
      script: flags.scan_scripts,
      stylesheet: flags.scan_stylesheets,
    };
    const outcomes = new Map<string, TargetOutcome>();
    const skipped = new Set<string>();
    const brokenUrls = new Set<string>();
    const queue: { url: string; depth: number }[] = [{ url: this.rootUrl, depth: 0 }];
    const queued = new Set<string>([this.rootUrl]);
    let pagesCrawled = 0;
    let totalLinks = 0;
    let brokenLinks = 0;
    let occurrences = 0;
    let maxDepth = 0;

    // Each page enters the queue once and the site is finite, so this ends.
    for (let head = 0; head < queue.length; head++) {
      const { url: pageUrl, depth } = queue[head]!;
      const page = this.pageNumber(this.locate(pageUrl).path);
      if (page === null) throw new Error(`synthetic site: queued ${pageUrl} is not a generated page`);
      pagesCrawled++;
      maxDepth = Math.max(maxDepth, depth);
      const onPage = new Set<string>();
      for (const link of this.pageLinks(page)) {
        occurrences++;
        const url = resolveHref(link.href, pageUrl);
        if (!kindOn[link.kind]) continue;
        if (!this.isInternal(url) && !flags.follow_external) continue;
        if (this.isDisallowed(url)) {
          skipped.add(url);
          continue;
        }
        if (onPage.has(url)) continue;
        onPage.add(url);
        totalLinks++;
        let outcome = outcomes.get(url);
        if (outcome === undefined) {
          outcome = this.outcome(url);
          outcomes.set(url, outcome);
        }
        if (outcome.status === 0 || outcome.status >= 400) {
          brokenLinks++;
          brokenUrls.add(url);
        }
        const final = outcome.finalUrl;
        const isPage = final !== null && this.isInternal(final) && outcome.status >= 200 && outcome.status < 300 && outcome.html;
        if (link.kind === "anchor" && isPage && !queued.has(final)) {
          queued.add(final);
          queue.push({ url: final, depth: depth + 1 });
        }
      }
    }
    return {
      flags: { ...flags },
      pages_crawled: pagesCrawled,
      total_links: totalLinks,
      broken_links: brokenLinks,
      skipped_links: skipped.size,
      distinct_targets: outcomes.size,
      broken_urls: [...brokenUrls].sort(),
      link_occurrences: occurrences,
      max_depth: maxDepth,
    };
  }
}

/** Resolves an href against a page URL and drops the fragment (what src/crawler/normalize.ts does here). */
export function resolveHref(href: string, base: string): string {
  // Fast paths for the hrefs this site writes (the ground truth resolves ~600k of them); same result as URL.
  const simple = /^[A-Za-z0-9/._-]*$/;
  if (href.startsWith("#")) {
    const hash = base.indexOf("#");
    return hash === -1 ? base : base.slice(0, hash);
  }
  const hash = href.indexOf("#");
  const bare = hash === -1 ? href : href.slice(0, hash);
  if (bare.startsWith("/") && !bare.startsWith("//") && simple.test(bare)) {
    const origin = /^https?:\/\/[^/]+/.exec(base);
    if (origin !== null) return origin[0] + bare;
  }
  if (/^http:\/\/127\.0\.0\.1:\d+\//.test(bare) && simple.test(bare.slice(7))) return bare;
  const url = new URL(href, base);
  url.hash = "";
  return url.href;
}

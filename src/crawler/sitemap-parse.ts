import { Parser } from "htmlparser2";
import { SITEMAP_MAX_DEPTH, SITEMAP_PARSE_BUDGET_MS } from "../core/sitemap-limits.ts";

/**
 * One sitemap read as a stream (htmlparser2's XML tokenizer), holding only the element path and the current
 * `<loc>`. Only a `<loc>` directly in `<url>` or `<sitemap>` counts; stops at SITEMAP_MAX_DEPTH or its time budget.
 */

/** What the document is: a list of pages, a list of sitemaps, or neither. */
export type SitemapKind = "urlset" | "sitemapindex" | "unknown";

/** What reading one sitemap gave. */
export interface ParsedSitemap {
  kind: SitemapKind;
  /** The `<loc>` values in document order, trimmed; at most `maxLocs`. */
  locs: string[];
  /** True when more `<loc>` values followed than `maxLocs`. */
  capped: boolean;
  /** Set when reading stopped early: markup nested deeper than SITEMAP_MAX_DEPTH, or the time budget spent. */
  stopped?: "too_deep" | "too_slow";
}

/** The time one parse may take, and the clock it is measured on (tests pass their own). */
export interface ParseBudget {
  ms: number;
  now: () => number;
}

const DEFAULT_BUDGET: ParseBudget = { ms: SITEMAP_PARSE_BUDGET_MS, now: () => performance.now() };

/** Characters of one `<loc>` kept at most: longer ones cannot be checked anyway (normalize.ts, MAX_URL_LENGTH). */
const MAX_LOC_CHARS = 4096;
/** Bytes decoded and tokenized per step, so no decoded copy of the whole body exists at once. */
const SLICE_BYTES = 64 * 1024;

function localName(name: string): string {
  const colon = name.lastIndexOf(":");
  return (colon < 0 ? name : name.slice(colon + 1)).toLowerCase();
}

/** True when the body's first character that is not white space (or a byte-order mark) opens markup. */
function looksLikeMarkup(body: Uint8Array): boolean {
  for (let i = 0; i < body.length && i < 1024; i++) {
    const byte = body[i]!;
    if (byte === 0x3c) return true; // "<"
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0xef && byte !== 0xbb && byte !== 0xbf) return false;
  }
  return false;
}

/**
 * The protocol's text format: one URL per line, nothing else. A line that is not an http(s) URL makes the file
 * something else (a page, an error message), so nothing of it is taken.
 */
function parseTextSitemap(body: Uint8Array, maxLocs: number): ParsedSitemap {
  const locs: string[] = [];
  const text = new TextDecoder("utf-8").decode(body).replace(/^\uFEFF/, "");
  // Line by line without splitting the whole text: the loop ends at the cap, not at the end of a long file.
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === "") continue;
    if (!/^https?:\/\//i.test(line)) return { kind: "unknown", locs: [], capped: false };
    if (locs.length >= maxLocs) return { kind: "urlset", locs, capped: true };
    locs.push(line.slice(0, MAX_LOC_CHARS));
  }
  return { kind: locs.length > 0 ? "urlset" : "unknown", locs, capped: false };
}

/**
 * Reads the `<loc>` values of a sitemap body (UTF-8, as the protocol requires), keeping at most `maxLocs`; a
 * body that is not markup is read as the protocol's text format.
 */
export function parseSitemap(body: Uint8Array, maxLocs: number, budget: ParseBudget = DEFAULT_BUDGET): ParsedSitemap {
  if (!looksLikeMarkup(body)) return parseTextSitemap(body, maxLocs);
  let kind: SitemapKind = "unknown";
  const locs: string[] = [];
  let capped = false;
  let stopped: ParsedSitemap["stopped"];
  const path: string[] = [];
  let loc: string | null = null;
  let done = false;
  const stop = (why?: ParsedSitemap["stopped"]) => {
    done = true;
    stopped ??= why;
    // At once, mid-slice: htmlparser2 searches its open elements for every end tag (and moves them all for every
    // start tag), so a slice of stray end tags under deep nesting would otherwise cost it minutes.
    parser.pause();
  };

  const parser = new Parser(
    {
      onopentag(name) {
        const local = localName(name);
        if (path.length === 0 && kind === "unknown" && (local === "urlset" || local === "sitemapindex")) kind = local;
        path.push(local);
        if (path.length > SITEMAP_MAX_DEPTH) return stop("too_deep");
        if (local === "loc" && path.length === 3 && path[0] === kind && path[1] === (kind === "urlset" ? "url" : "sitemap")) loc = "";
      },
      ontext(text) {
        if (loc !== null && loc.length < MAX_LOC_CHARS) loc += text.slice(0, MAX_LOC_CHARS - loc.length);
      },
      onclosetag(_name, isImplied) {
        if (loc !== null && path.length === 3) {
          const value = loc.trim();
          loc = null;
          // A `<loc>` closed only because the body ended or broke off may be half a URL.
          if (value !== "" && !isImplied) {
            if (locs.length < maxLocs) locs.push(value);
            else {
              capped = true;
              stop();
            }
          }
        }
        path.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );

  const decoder = new TextDecoder("utf-8");
  const deadline = budget.now() + budget.ms;
  for (let offset = 0; offset < body.length && !done; offset += SLICE_BYTES) {
    parser.write(decoder.decode(body.subarray(offset, offset + SLICE_BYTES), { stream: true }));
    if (!done && budget.now() > deadline) stop("too_slow");
  }
  if (!done) parser.end();
  return stopped === undefined ? { kind, locs, capped } : { kind, locs, capped, stopped };
}

import { HrefResolver } from "./href-resolver.ts";
import { checkAttributeReads, ReadAttributes, type ScannerCallbacks } from "./html-scanner.ts";
import { createPageReader } from "./wasm/page-reader.ts";
import { attributesRead, CONTEXT_TAGS, eachRawUrl, LINK_TAGS, type LinkKind, rowFor } from "./link-tags.ts";
import { recordedForm } from "./normalize.ts";
import { PageIdCollector, type PageIds } from "./page-ids.ts";
import { InlineCss } from "./css-inline.ts";
import { cleanPageText } from "../core/visible-text.ts";

/**
 * Link extraction in one streaming pass over the page reader's events (wasm/page-reader.ts, or its reference
 * html-scanner.ts: htmlparser2's events and rules); which tags carry links is the table in link-tags.ts, this file only walks the document. Decisions,
 * each as a browser would see the page:
 * - `<base href>`: the first one with an href sets the base for the *whole* document, links before it
 *   included. Links are kept raw and resolved in `end()`, which costs nothing extra because the result is
 *   only returned there anyway, and the HTML itself is never buffered.
 * - `<template>` content is skipped (inert until a script clones it, and often holds `{{placeholders}}`);
 *   `<noscript>` content is kept: visitors without JavaScript follow those links.
 * - SVG links count: `<a href|xlink:href>` as anchors, `<image href|xlink:href>` as images.
 * - A `<source>` takes its kind from the nearest open `<picture>`, `<video>` or `<audio>` (link-tags.ts).
 * - Nested anchors: an `<a>` inside an open `<a>` closes the first (the scanner does this, as htmlparser2 and browsers do).
 * - Duplicates are kept, in document order; the crawler dedupes per (source page, target) pair. Hrefs of other
 *   schemes (mailto:, javascript:, …) are not links to check; hrefs that do not parse or are longer than
 *   MAX_URL_LENGTH are kept as `uncheckable`, because a visitor cannot follow them either.
 * Every tag of every page passes here, so the walk allocates one object per link (the link returned, holding
 * its raw href until `end()` resolves it in place) and keeps text only for links that show it (anchors, alt).
 */

/** One link found on a page. */
export interface ExtractedLink {
  /** The target, resolved and normalised (normalize.ts), without fragment. */
  url: string;
  /** The href's fragment as the URL parser wrote it (percent-encoded), when it had a non-empty one. */
  fragment?: string;
  kind: LinkKind;
  /** Collapsed anchor text (with alt of wrapped images) or an image's alt; "" for other kinds. */
  text: string;
  /** The tag that carried it, lowercased: a, area, img, source, link, iframe, form, … (link-tags.ts). */
  tag: string;
  /** Set when the href cannot be checked; `url` is then the href as written (normalize.ts recordedForm). */
  uncheckable?: UncheckableReason;
}

/** Why an href found on a page cannot be checked. */
export type UncheckableReason = "invalid_url" | "url_too_long";

/** A streaming extractor: feed decoded chunks (or a UTF-8 page's bytes), then `end()` once for the page's links. */
export interface Extractor {
  write(chunk: string): void;
  /** The next bytes of a page in UTF-8 (never mixed with `write` in one page). */
  writeUtf8(bytes: Uint8Array): void;
  end(): ExtractedLink[];
  /** Links found past the `maxLinks` cap: counted, not kept. */
  readonly dropped: number;
  /** The page's ids (page-ids.ts) after `end()`, when asked for with `collectIds`; `cut`: the page was read in part. */
  ids(cut: boolean): PageIds | null;
}

/** What an extractor gathers besides links; everything here is off unless asked for. */
export interface ExtractorOptions {
  /** Links kept at most (in document order), so one page's work and memory are bounded. */
  maxLinks?: number;
  /** Gather the ids fragments can point at (for `check_fragments`). */
  collectIds?: boolean;
  /** Take the URLs of `<style>` blocks and `style` attributes, as `stylesheet` links (for `scan_stylesheets`). */
  scanCss?: boolean;
  /** Throw when the walk reads an attribute the reader was not told to hand (html-scanner.ts `checkAttributeReads`; tests only). */
  checkAttributeReads?: boolean;
  /** Read with the JS scanner, not the Wasm reader (the reference the tests compare the Wasm reader with). */
  jsScanner?: boolean;
}

/** The most link text kept, in code points (a surrogate pair is never split). */
export const MAX_LINK_TEXT = 300;

/** Elements whose text content is not shown, so never part of a link's text. */
const HIDDEN_TEXT_TAGS: ReadonlySet<string> = new Set(["script", "style"]);

/** A streaming extractor for the page at `pageUrl` (the base until a `<base href>` says otherwise). */
export function createExtractor(pageUrl: string, options: ExtractorOptions = {}): Extractor {
  const { maxLinks = Number.POSITIVE_INFINITY, collectIds = false, scanCss = false } = options;
  const checked = (read: ReadAttributes, cbs: ScannerCallbacks): ScannerCallbacks =>
    options.checkAttributeReads === true ? checkAttributeReads(cbs, read) : cbs;
  // Links in document order; `url` holds the href as written until end() resolves it.
  const found: ExtractedLink[] = [];
  let dropped = 0;
  let baseHref: string | null = null;
  let templateDepth = 0;
  let hiddenText: string | null = null;
  // The open anchor's text so far, and its own links: found[anchorFrom..anchorTo) (links inside it follow).
  let anchor: TextCollector | null = null;
  let anchorFrom = 0;
  let anchorTo = 0;
  // Open elements of CONTEXT_TAGS, innermost last; a subset of the parser's own stack of open elements.
  const contexts: string[] = [];
  const ids = collectIds ? new PageIdCollector() : null;
  const css = scanCss ? new InlineCss() : null;

  // The tag and text of the links `keep` is handed next (one closure for the page, not one per tag).
  let keepTag = "";
  let keepText = "";
  /** Keeps one link up to `maxLinks` in all, counting the rest. */
  const keep = (raw: string, kind: LinkKind): void => {
    if (found.length < maxLinks) found.push({ url: raw, kind, text: keepText, tag: keepTag });
    else dropped++;
  };
  const keepCss = (raws: string[], tag: string): void => {
    keepTag = tag;
    keepText = "";
    for (const raw of raws) keep(raw, "stylesheet");
  };

  /** The links of one tag, kept up to `maxLinks`. */
  const takeLinks = (name: string, attribs: Record<string, string>): void => {
    const rows = LINK_TAGS.get(name);
    if (rows === undefined) return;
    const tag = rowFor(rows, attribs, contexts.length === 0 ? null : contexts[contexts.length - 1]!);
    if (tag === undefined) return;
    const from = found.length;
    keepTag = name;
    keepText = tag.text === "alt" ? linkText(attribs.alt ?? "") : "";
    eachRawUrl(tag, attribs, keep);
    if (tag.text === "content" && found.length > from) {
      anchor = new TextCollector();
      anchorFrom = from;
      anchorTo = found.length;
    }
  };

  const closeAnchor = (): void => {
    if (anchor === null) return;
    const text = anchor.value();
    for (let i = anchorFrom; i < anchorTo; i++) found[i]!.text = text;
    anchor = null;
  };

  // Text matters only inside an anchor (its link text) or a `<style>` being scanned; the rest is never sliced.
  const wantsText = (): boolean => templateDepth === 0 && ((anchor !== null && hiddenText === null) || (css !== null && hiddenText === "style"));
  const read = readAttributes(collectIds, scanCss);
  const parser = createPageReader(
    wantsText,
    read,
    options.jsScanner === true,
    checked(read, {
      onopentag(name, attribs) {
        if (name === "template") templateDepth++;
        if (templateDepth > 0) return;
        if (HIDDEN_TEXT_TAGS.has(name)) hiddenText = name;
        if (name === "base" && baseHref === null && "href" in attribs) baseHref = attribs.href ?? "";
        if (name === "img" && anchor !== null && attribs.alt) anchor.add(` ${attribs.alt} `);
        ids?.element(name, attribs);
        takeLinks(name, attribs);
        if (css !== null && attribs.style !== undefined) keepCss(css.attribute(attribs.style), name);
        if (css !== null && name === "style") css.openStyle(attribs);
        if (CONTEXT_TAGS.has(name)) contexts.push(name);
      },
      ontext(data) {
        if (anchor !== null && templateDepth === 0 && hiddenText === null) anchor.add(data);
        if (css !== null && hiddenText === "style" && templateDepth === 0) css.text(data);
      },
      onclosetag(name) {
        if (name === "template" && templateDepth > 0) templateDepth--;
        else if (templateDepth > 0) return;
        if (name === hiddenText) hiddenText = null;
        if (name === "a") closeAnchor();
        if (css !== null && name === "style") keepCss(css.closeStyle(), name);
        if (CONTEXT_TAGS.has(name)) {
          const open = contexts.lastIndexOf(name);
          if (open !== -1) contexts.length = open;
        }
      },
    }),
  );

  return {
    get dropped() {
      return dropped;
    },
    ids(cut) {
      return ids === null ? null : ids.result(cut);
    },
    write(chunk) {
      parser.write(chunk);
    },
    writeUtf8(bytes) {
      parser.writeUtf8(bytes);
    },
    end() {
      parser.end();
      closeAnchor();
      const resolver = new HrefResolver(documentBase(baseHref, pageUrl));
      // Resolved in place; links of other schemes are dropped by moving the rest down.
      let kept = 0;
      for (const link of found) {
        const raw = link.url;
        const url = resolver.url(raw);
        // Without a URL, normalize says why (cached: no second resolution).
        const skipped = url === null ? resolver.normalize(raw) : null;
        if (url !== null) {
          link.url = url;
          if (resolver.fragment !== undefined) link.fragment = resolver.fragment;
        } else if (skipped?.kind === "skip" && skipped.reason === "invalid") {
          link.url = recordedForm(raw.trim());
          link.uncheckable = "invalid_url";
        } else if (skipped?.kind === "skip" && skipped.reason === "too_long") {
          link.url = recordedForm(skipped.url);
          link.uncheckable = "url_too_long";
        } else continue;
        found[kept++] = link;
      }
      found.length = kept;
      return found;
    },
  };
}

/**
 * The attributes the walk above reads, and no others: a tag's link rows (link-tags.ts), `<base href>`, `alt`
 * of an image inside an anchor; with ids, every `id` and `<a name>`; with CSS, every `style` and `<style type>`.
 */
export function readAttributes(collectIds: boolean, scanCss: boolean): ReadAttributes {
  const key = (collectIds ? 1 : 0) + (scanCss ? 2 : 0);
  let read = READ_ATTRIBUTES[key];
  if (read === undefined) {
    const byTag = new Map<string, Set<string>>();
    const add = (tag: string, name: string): void => {
      const names = byTag.get(tag) ?? new Set<string>();
      names.add(name);
      byTag.set(tag, names);
    };
    for (const [tag, rows] of LINK_TAGS) for (const name of attributesRead(rows)) add(tag, name);
    add("base", "href");
    add("img", "alt");
    if (collectIds) add("a", "name");
    if (scanCss) add("style", "type");
    const everywhere = new Set<string>();
    if (collectIds) everywhere.add("id");
    if (scanCss) everywhere.add("style");
    read = new ReadAttributes(byTag, everywhere);
    READ_ATTRIBUTES[key] = read;
  }
  return read;
}

/** readAttributes' answers, by option combination. */
const READ_ATTRIBUTES: (ReadAttributes | undefined)[] = [];

/** All links of a complete document; see createExtractor. */
export function extractLinks(html: string, pageUrl: string): ExtractedLink[] {
  const extractor = createExtractor(pageUrl);
  extractor.write(html);
  return extractor.end();
}

/**
 * HTML's "frozen base URL": the base href resolved against the page, unless it does not parse or is a
 * data:/javascript: URL, in which case the page's own URL stays the base.
 */
function documentBase(baseHref: string | null, pageUrl: string): string {
  if (baseHref === null) return pageUrl;
  try {
    const base = new URL(baseHref, pageUrl);
    return base.protocol === "data:" || base.protocol === "javascript:" ? pageUrl : base.href;
  } catch {
    return pageUrl;
  }
}

/** Controls dropped, bidi controls as markers, whitespace runs as one space, trimmed, at most MAX_LINK_TEXT code points. */
function linkText(raw: string): string {
  return takeCodePoints(cleanText(raw).trim(), MAX_LINK_TEXT).trimEnd();
}

const WHITESPACE_RUN = /\s+/g;

/** The text as stored: controls dropped and bidi controls made visible (core/visible-text.ts), whitespace runs collapsed. */
function cleanText(s: string): string {
  // Most link texts are printable ASCII with single spaces between words: nothing to replace, no regex run.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) continue;
    if (c === 0x20 && i > 0 && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next > 0x20 && next < 0x7f) continue;
    }
    // Controls first: "a \0 b" is "a  b" before its spaces are collapsed.
    return cleanPageText(s).replace(WHITESPACE_RUN, " ");
  }
  return s;
}

function takeCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = 0;
  for (let count = 0; count < max && end < s.length; count++) end += (s.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  return s.slice(0, end);
}

/** Raw characters gathered before they are collapsed and cut, so an anchor around a whole page stays small. */
const COMPACT_AT = 4096;

/** Anchor text gathered across text events, bounded in memory however long the anchor is. */
class TextCollector {
  private text = "";
  private full = false;

  add(data: string): void {
    if (this.full) return;
    this.text += data;
    if (this.text.length > COMPACT_AT) this.compact();
  }

  value(): string {
    return linkText(this.text);
  }

  private compact(): void {
    const collapsed = cleanText(this.text);
    // Two spare code points: a leading space that trim() removes, and one to know the cap was reached.
    const kept = takeCodePoints(collapsed, MAX_LINK_TEXT + 2);
    this.full = kept.length < collapsed.length;
    this.text = kept;
  }
}

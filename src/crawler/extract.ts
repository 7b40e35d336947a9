import { Parser } from "htmlparser2";
import { CONTEXT_TAGS, LINK_TAGS, type LinkKind, rawUrlsOf, rowFor } from "./link-tags.ts";
import { normalizeUrl, recordedForm } from "./normalize.ts";
import { PageIdCollector, type PageIds } from "./page-ids.ts";
import { InlineCss } from "./css-inline.ts";

/**
 * Link extraction in one streaming pass over htmlparser2's events; which tags carry links is the table in
 * link-tags.ts, this file only walks the document. Decisions, each as a browser would see the page:
 * - `<base href>`: the first one with an href sets the base for the *whole* document, links before it
 *   included. Links are kept raw and resolved in `end()`, which costs nothing extra because the result is
 *   only returned there anyway, and the HTML itself is never buffered.
 * - `<template>` content is skipped (inert until a script clones it, and often holds `{{placeholders}}`);
 *   `<noscript>` content is kept: visitors without JavaScript follow those links.
 * - SVG links count: `<a href|xlink:href>` as anchors, `<image href|xlink:href>` as images.
 * - A `<source>` takes its kind from the nearest open `<picture>`, `<video>` or `<audio>` (link-tags.ts).
 * - Nested anchors: an `<a>` inside an open `<a>` closes the first (htmlparser2 does this, as browsers do).
 * - Duplicates are kept, in document order; the crawler dedupes per (source page, target) pair. Hrefs of other
 *   schemes (mailto:, javascript:, …) are not links to check; hrefs that do not parse or are longer than
 *   MAX_URL_LENGTH are kept as `uncheckable`, because a visitor cannot follow them either.
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

/** A streaming extractor: feed decoded chunks, then `end()` once for the page's links. */
export interface Extractor {
  write(chunk: string): void;
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
}

/** The most link text kept, in code points (a surrogate pair is never split). */
export const MAX_LINK_TEXT = 300;

interface RawLink {
  raw: string;
  kind: LinkKind;
  tag: string;
  text: string;
}

/** Elements whose text content is not shown, so never part of a link's text. */
const HIDDEN_TEXT_TAGS: ReadonlySet<string> = new Set(["script", "style"]);

/** A streaming extractor for the page at `pageUrl` (the base until a `<base href>` says otherwise). */
export function createExtractor(pageUrl: string, options: ExtractorOptions = {}): Extractor {
  const { maxLinks = Number.POSITIVE_INFINITY, collectIds = false, scanCss = false } = options;
  const found: RawLink[] = [];
  let dropped = 0;
  let baseHref: string | null = null;
  let templateDepth = 0;
  let hiddenText: string | null = null;
  let anchor: { links: RawLink[]; text: TextCollector } | null = null;
  // Open elements of CONTEXT_TAGS, innermost last; a subset of the parser's own stack of open elements.
  const contexts: string[] = [];
  const ids = collectIds ? new PageIdCollector() : null;
  const css = scanCss ? new InlineCss() : null;

  /** Keeps `links` up to `maxLinks` in all, counting the rest. */
  const keep = (links: RawLink[]): RawLink[] => {
    const room = maxLinks - found.length;
    if (links.length > room) {
      dropped += links.length - Math.max(0, room);
      links = links.slice(0, Math.max(0, room));
    }
    found.push(...links);
    return links;
  };
  const keepCss = (raws: string[], tag: string): void => {
    if (raws.length > 0) keep(raws.map((raw) => ({ raw, kind: "stylesheet", tag, text: "" })));
  };

  /** The links of one tag, kept up to `maxLinks`. */
  const takeLinks = (name: string, attribs: Record<string, string>): RawLink[] => {
    const rows = LINK_TAGS.get(name);
    const tag = rows === undefined ? undefined : rowFor(rows, attribs, contexts.at(-1) ?? null);
    if (tag === undefined) return [];
    const text = tag.text === "alt" ? linkText(attribs.alt ?? "") : "";
    const links = keep(rawUrlsOf(tag, attribs).map(({ raw, kind }) => ({ raw, kind, tag: name, text })));
    if (tag.text === "content" && links.length > 0) anchor = { links, text: new TextCollector() };
    return links;
  };

  const closeAnchor = (): void => {
    if (anchor === null) return;
    const text = anchor.text.value();
    for (const link of anchor.links) link.text = text;
    anchor = null;
  };

  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === "template") templateDepth++;
      if (templateDepth > 0) return;
      if (HIDDEN_TEXT_TAGS.has(name)) hiddenText = name;
      if (name === "base" && baseHref === null && "href" in attribs) baseHref = attribs.href ?? "";
      if (name === "img" && anchor !== null && attribs.alt) anchor.text.add(` ${attribs.alt} `);
      ids?.element(name, attribs);
      takeLinks(name, attribs);
      if (css !== null && attribs.style !== undefined) keepCss(css.attribute(attribs.style), name);
      if (css !== null && name === "style") css.openStyle(attribs);
      if (CONTEXT_TAGS.has(name)) contexts.push(name);
    },
    ontext(data) {
      if (anchor !== null && templateDepth === 0 && hiddenText === null) anchor.text.add(data);
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
  });

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
    end() {
      parser.end();
      closeAnchor();
      const base = documentBase(baseHref, pageUrl);
      const links: ExtractedLink[] = [];
      for (const { raw, kind, tag, text } of found) {
        const normalized = normalizeUrl(raw, base);
        if (normalized.kind === "url") {
          const link: ExtractedLink = { url: normalized.url, kind, text, tag };
          if (normalized.fragment !== undefined) link.fragment = normalized.fragment;
          links.push(link);
        } else if (normalized.reason === "invalid") links.push({ url: recordedForm(raw.trim()), kind, text, tag, uncheckable: "invalid_url" });
        else if (normalized.reason === "too_long") links.push({ url: recordedForm(normalized.url), kind, text, tag, uncheckable: "url_too_long" });
      }
      return links;
    },
  };
}

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

/** Whitespace runs as one space, trimmed, at most MAX_LINK_TEXT code points. */
function linkText(raw: string): string {
  return takeCodePoints(collapseWhitespace(raw).trim(), MAX_LINK_TEXT).trimEnd();
}

function collapseWhitespace(s: string): string {
  return s.replace(/\s+/g, " ");
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
  private parts: string[] = [];
  private size = 0;
  private full = false;

  add(data: string): void {
    if (this.full) return;
    this.parts.push(data);
    this.size += data.length;
    if (this.size > COMPACT_AT) this.compact();
  }

  value(): string {
    return linkText(this.parts.join(""));
  }

  private compact(): void {
    const collapsed = collapseWhitespace(this.parts.join(""));
    // Two spare code points: a leading space that trim() removes, and one to know the cap was reached.
    const kept = takeCodePoints(collapsed, MAX_LINK_TEXT + 2);
    this.full = kept.length < collapsed.length;
    this.parts = [kept];
    this.size = kept.length;
  }
}

import type { StoredLinkKind } from "../core/link-kind.ts";

/**
 * Which tags carry links, as data (after linkinator's table): a tag's rows are tried in order and the first whose
 * conditions hold wins. docs/api.md "Which tags are checked" is this table in words.
 */

/** What a link points at: anchors are always checked, the other kinds only with their `scan_*` crawl option. */
export type LinkKind = Exclude<StoredLinkKind, "sitemap">;

/** How an attribute value holds its URLs. */
export type AttributeSyntax = "url" | "srcset" | "refresh";

/** One source of URLs on a tag. */
export interface LinkAttribute {
  /** Candidate names; the first one present wins (SVG 2 prefers `href` to `xlink:href`). */
  names: readonly string[];
  syntax: AttributeSyntax;
  /** The kind of this attribute's links when it differs from the row's (a video's `poster` is an image). */
  kind?: LinkKind;
}

/**
 * A condition on another attribute: the value (ASCII case-insensitive) is one of `values` (`match: "value"`),
 * or one of its whitespace-separated tokens is (`match: "token"`). `negate` turns it around, and then an
 * absent attribute satisfies it (a form without `method` submits with GET).
 */
export interface AttributeCondition {
  attribute: string;
  match: "token" | "value";
  values: readonly string[];
  negate?: boolean;
}

/** One row of the table. */
export interface LinkTag {
  kind: LinkKind;
  attributes: readonly LinkAttribute[];
  /** Where the link text comes from: the element's text content, its `alt`, or nowhere. */
  text: "content" | "alt" | "none";
  /**
   * Whether an empty value still means something. `href=""` on a or area is the document itself, and so is an
   * empty form action; an empty src or href on a resource is no request at all (HTML's fetch steps stop
   * there), so nothing to check.
   */
  emptyIsDocument: boolean;
  /** Conditions on the tag's other attributes, all of which must hold. */
  when?: readonly AttributeCondition[];
  /** The nearest open element among CONTEXT_TAGS must be one of these (none open: the row does not apply). */
  inside?: readonly string[];
}

/** Elements that give a `source` its meaning; the extractor tracks the nearest open one. */
export const CONTEXT_TAGS: ReadonlySet<string> = new Set(["picture", "video", "audio"]);

const url = (...names: string[]): LinkAttribute => ({ names, syntax: "url" });
const srcset: LinkAttribute = { names: ["srcset"], syntax: "srcset" };
const rel = (...values: string[]): AttributeCondition => ({ attribute: "rel", match: "token", values });
const preloadAs = (...values: string[]): AttributeCondition[] => [rel("preload"), { attribute: "as", match: "value", values }];

/** A resource row: no link text, an empty value is no request. */
function resource(kind: LinkKind, attributes: readonly LinkAttribute[], extra: Pick<LinkTag, "when" | "inside"> = {}): LinkTag {
  return { kind, attributes, text: "none", emptyIsDocument: false, ...extra };
}

/** `<link>` rels that name another document a reader may go to: checked as anchors. */
const PAGE_RELS = [
  "canonical",
  "alternate",
  "next",
  "prev",
  "up",
  "home",
  "index",
  "search",
  "help",
  "license",
  "first",
  "last",
  "start",
  "contents",
  "author",
];
const ICON_RELS = ["icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon"];
const linkHref = [url("href")];

/**
 * The tag table, keyed by lowercased tag name as the scanner (html-scanner.ts) reports it. `image` is SVG's
 * element: outside SVG the scanner already renames `<image>` to `img`, as browsers do.
 */
export const LINK_TAGS: ReadonlyMap<string, readonly LinkTag[]> = new Map<string, readonly LinkTag[]>([
  ["a", [{ kind: "anchor", attributes: [url("href", "xlink:href")], text: "content", emptyIsDocument: true }]],
  ["area", [{ kind: "anchor", attributes: [url("href")], text: "alt", emptyIsDocument: true }]],
  // Documents a browser shows inside the page: internal HTML ones are crawled as pages.
  ["iframe", [resource("anchor", [url("src")])]],
  ["frame", [resource("anchor", [url("src")])]],
  // A GET form leads to a page (a search page, often reachable no other way); a POST one changes something.
  [
    "form",
    [
      {
        kind: "anchor",
        attributes: [url("action")],
        text: "none",
        emptyIsDocument: true,
        when: [{ attribute: "method", match: "value", values: ["post", "dialog"], negate: true }],
      },
    ],
  ],
  ["blockquote", [resource("anchor", [url("cite")])]],
  ["q", [resource("anchor", [url("cite")])]],
  ["ins", [resource("anchor", [url("cite")])]],
  ["del", [resource("anchor", [url("cite")])]],
  ["img", [{ kind: "image", attributes: [url("src"), srcset], text: "alt", emptyIsDocument: false }]],
  ["source", [resource("media", [url("src")], { inside: ["video", "audio"] }), resource("image", [url("src"), srcset])]],
  ["image", [resource("image", [url("href", "xlink:href")])]],
  [
    "input",
    [{ kind: "image", attributes: [url("src")], text: "alt", emptyIsDocument: false, when: [{ attribute: "type", match: "value", values: ["image"] }] }],
  ],
  ["video", [resource("media", [url("src"), { names: ["poster"], syntax: "url", kind: "image" }])]],
  ["audio", [resource("media", [url("src")])]],
  ["track", [resource("media", [url("src")])]],
  ["embed", [resource("media", [url("src")])]],
  ["object", [resource("media", [url("data")])]],
  ["script", [resource("script", [url("src")])]],
  [
    "link",
    [
      resource("stylesheet", linkHref, { when: [rel("stylesheet")] }),
      resource("image", linkHref, { when: [rel(...ICON_RELS)] }),
      resource("script", linkHref, { when: [rel("modulepreload")] }),
      resource("script", linkHref, { when: [rel("manifest")] }),
      resource("image", [url("href"), { names: ["imagesrcset"], syntax: "srcset" }], { when: preloadAs("image") }),
      resource("script", linkHref, { when: preloadAs("script") }),
      resource("stylesheet", linkHref, { when: preloadAs("style", "font") }),
      resource("media", linkHref, { when: preloadAs("audio", "video", "track") }),
      resource("anchor", linkHref, { when: [rel(...PAGE_RELS)] }),
    ],
  ],
  ["meta", [resource("anchor", [{ names: ["content"], syntax: "refresh" }], { when: [{ attribute: "http-equiv", match: "value", values: ["refresh"] }] })]],
]);

/** The attributes `rowFor` and `eachRawUrl` read on a tag with these rows, and `alt` where it is the link text. */
export function attributesRead(rows: readonly LinkTag[]): Set<string> {
  const names = new Set<string>();
  for (const row of rows) {
    for (const attribute of row.attributes) for (const name of attribute.names) names.add(name);
    for (const condition of row.when ?? []) names.add(condition.attribute);
    if (row.text === "alt") names.add("alt");
  }
  return names;
}

/**
 * The row of `rows` that applies to a tag with these attributes inside `context` (the nearest open element
 * of CONTEXT_TAGS, or null), or undefined when none does.
 */
export function rowFor(rows: readonly LinkTag[], attribs: Readonly<Record<string, string>>, context: string | null): LinkTag | undefined {
  for (const row of rows) {
    if (row.inside !== undefined && (context === null || !row.inside.includes(context))) continue;
    if (row.when === undefined || row.when.every((condition) => conditionHolds(condition, attribs[condition.attribute]))) return row;
  }
  return undefined;
}

/**
 * Hands `take` the raw (unresolved) URLs a tag of this row carries, in attribute order, with their kinds.
 * A callback rather than an array: it runs for every tag of every page, and most carry one URL.
 */
export function eachRawUrl(tag: LinkTag, attribs: Readonly<Record<string, string>>, take: (raw: string, kind: LinkKind) => void): void {
  for (const attribute of tag.attributes) {
    let name: string | undefined;
    for (const candidate of attribute.names) {
      if (candidate in attribs) {
        name = candidate;
        break;
      }
    }
    if (name === undefined) continue;
    const kind = attribute.kind ?? tag.kind;
    const value = attribs[name] ?? "";
    if (attribute.syntax === "url") {
      if (tag.emptyIsDocument || !isBlank(value)) take(value, kind);
      continue;
    }
    for (const raw of urlsInValue(value, attribute.syntax)) {
      if (tag.emptyIsDocument || !isBlank(raw)) take(raw, kind);
    }
  }
}

function conditionHolds(condition: AttributeCondition, actual: string | undefined): boolean {
  if (actual === undefined) return condition.negate === true;
  const lowered = actual.toLowerCase();
  const matches =
    condition.match === "value" ? condition.values.includes(lowered) : lowered.split(ASCII_WHITESPACE_RUN).some((token) => condition.values.includes(token));
  return matches !== (condition.negate === true);
}

function urlsInValue(value: string, syntax: AttributeSyntax): string[] {
  switch (syntax) {
    case "url":
      return [value];
    case "srcset":
      return srcsetUrls(value);
    case "refresh": {
      const target = refreshUrl(value);
      return target === null ? [] : [target];
    }
  }
}

/**
 * The URLs of a srcset candidate list, by HTML's "parse a srcset attribute" (commas inside a URL stay). Descriptors
 * are not validated: a checker wants every URL an author wrote.
 */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (isAsciiWhitespace(value[i]) || value[i] === ",")) i++;
    const start = i;
    while (i < value.length && !isAsciiWhitespace(value[i])) i++;
    if (start === i) break;
    const candidate = value.slice(start, i);
    const trimmed = candidate.replace(/,+$/, "");
    if (trimmed === candidate) i = skipDescriptors(value, i);
    urls.push(trimmed);
  }
  return urls;
}

/** The index just past the candidate's descriptors: the next comma outside parentheses, or the end. */
function skipDescriptors(value: string, from: number): number {
  let inParens = false;
  for (let i = from; i < value.length; i++) {
    const c = value[i];
    if (inParens) inParens = c !== ")";
    else if (c === "(") inParens = true;
    else if (c === ",") return i + 1;
  }
  return value.length;
}

/**
 * The target of a meta refresh `content`, by HTML's "shared declarative refresh steps": a time, then a
 * separator, then the URL, optionally as `url=` and optionally quoted (`0;URL='x'`, `5; url=x`, `5, x`).
 * Null when there is no URL (a refresh of the page itself, not a new link) or the time does not parse.
 */
export function refreshUrl(content: string): string | null {
  let i = skipAsciiWhitespace(content, 0);
  const timeStart = i;
  while (i < content.length && isDigit(content[i])) i++;
  if (i === timeStart && content[i] !== ".") return null;
  while (i < content.length && (isDigit(content[i]) || content[i] === ".")) i++;
  if (i === content.length) return null;
  if (content[i] !== ";" && content[i] !== "," && !isAsciiWhitespace(content[i])) return null;
  i = skipAsciiWhitespace(content, i);
  if (content[i] === ";" || content[i] === ",") i = skipAsciiWhitespace(content, i + 1);
  const remainder = content.slice(i);
  const prefix = /^url[\t\n\f\r ]*=[\t\n\f\r ]*/i.exec(remainder);
  // Without the `=`, "url…" is just the start of a relative URL such as "urls.html".
  let target = prefix === null ? remainder : remainder.slice(prefix[0].length);
  const quote = target[0] === "'" || target[0] === '"' ? target[0] : "";
  if (quote !== "") {
    target = target.slice(1);
    const close = target.indexOf(quote);
    if (close !== -1) target = target.slice(0, close);
  }
  return stripAsciiWhitespace(target) === "" ? null : target;
}

const ASCII_WHITESPACE_RUN = /[\t\n\f\r ]+/;

function isAsciiWhitespace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r";
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function skipAsciiWhitespace(s: string, from: number): number {
  let i = from;
  while (i < s.length && isAsciiWhitespace(s[i])) i++;
  return i;
}

/** Whether `s` is empty or only ASCII whitespace (what stripAsciiWhitespace would make ""). */
function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isAsciiWhitespace(s[i])) return false;
  return true;
}

function stripAsciiWhitespace(s: string): string {
  return s.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "");
}

/**
 * Which tags carry links, as data (after linkinator's table): adding a tag is a row here, not another branch
 * in the extractor. Each row names the link kind, the attributes holding URLs and how their values are
 * written (a plain URL, a srcset candidate list, a meta refresh `content`), where the link text comes from,
 * and an optional condition on another attribute (`link` only with rel~=stylesheet, `meta` only as a
 * refresh). The two value syntaxes that are more than a URL are parsed here by the HTML spec's rules.
 */

/** What a link points at: anchors are always checked, the other kinds only with their `scan_*` crawl option. */
export type LinkKind = "anchor" | "image" | "script" | "stylesheet";

/** How an attribute value holds its URLs. */
export type AttributeSyntax = "url" | "srcset" | "refresh";

/** One source of URLs on a tag. */
export interface LinkAttribute {
  /** Candidate names; the first one present wins (SVG 2 prefers `href` to `xlink:href`). */
  names: readonly string[];
  syntax: AttributeSyntax;
}

/** A condition on another attribute: an ASCII case-insensitive token in a list, or the whole value. */
export interface AttributeCondition {
  attribute: string;
  match: "token" | "value";
  value: string;
}

/** One row of the table. */
export interface LinkTag {
  kind: LinkKind;
  attributes: readonly LinkAttribute[];
  /** Where the link text comes from: the element's text content, its `alt`, or nowhere. */
  text: "content" | "alt" | "none";
  /**
   * Whether an empty value still means something. `href=""` on a or area is the document itself; an empty
   * src or href on a resource is no request at all (HTML's fetch steps stop there), so nothing to check.
   */
  emptyIsDocument: boolean;
  when?: AttributeCondition;
}

const url = (...names: string[]): LinkAttribute => ({ names, syntax: "url" });
const srcset: LinkAttribute = { names: ["srcset"], syntax: "srcset" };

/**
 * The tag table, keyed by lowercased tag name as htmlparser2 reports it. `image` is SVG's element: outside
 * SVG htmlparser2 already renames `<image>` to `img`, as browsers do.
 */
export const LINK_TAGS: ReadonlyMap<string, LinkTag> = new Map<string, LinkTag>([
  ["a", { kind: "anchor", attributes: [url("href", "xlink:href")], text: "content", emptyIsDocument: true }],
  ["area", { kind: "anchor", attributes: [url("href")], text: "alt", emptyIsDocument: true }],
  ["img", { kind: "image", attributes: [url("src"), srcset], text: "alt", emptyIsDocument: false }],
  ["source", { kind: "image", attributes: [url("src"), srcset], text: "none", emptyIsDocument: false }],
  ["image", { kind: "image", attributes: [url("href", "xlink:href")], text: "none", emptyIsDocument: false }],
  ["script", { kind: "script", attributes: [url("src")], text: "none", emptyIsDocument: false }],
  [
    "link",
    {
      kind: "stylesheet",
      attributes: [url("href")],
      text: "none",
      emptyIsDocument: false,
      when: { attribute: "rel", match: "token", value: "stylesheet" },
    },
  ],
  [
    "meta",
    {
      kind: "anchor",
      attributes: [{ names: ["content"], syntax: "refresh" }],
      text: "none",
      emptyIsDocument: false,
      when: { attribute: "http-equiv", match: "value", value: "refresh" },
    },
  ],
]);

/** The raw (unresolved) URLs a tag of this row carries, in attribute order; none when its condition fails. */
export function rawUrlsOf(tag: LinkTag, attribs: Readonly<Record<string, string>>): string[] {
  if (tag.when && !conditionHolds(tag.when, attribs[tag.when.attribute])) return [];
  const urls: string[] = [];
  for (const attribute of tag.attributes) {
    const name = attribute.names.find((candidate) => candidate in attribs);
    if (name === undefined) continue;
    for (const raw of urlsInValue(attribs[name] ?? "", attribute.syntax)) {
      if (tag.emptyIsDocument || stripAsciiWhitespace(raw) !== "") urls.push(raw);
    }
  }
  return urls;
}

function conditionHolds(condition: AttributeCondition, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  const wanted = condition.value.toLowerCase();
  if (condition.match === "value") return actual.toLowerCase() === wanted;
  return actual.split(ASCII_WHITESPACE_RUN).some((token) => token.toLowerCase() === wanted);
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
 * The URLs of a srcset candidate list, by HTML's "parse a srcset attribute": a URL is a run of
 * non-whitespace, so commas inside it stay (`a,b.png 1x` is one URL); trailing commas end a candidate that
 * has no descriptors; otherwise the descriptors run to the next comma outside parentheses. Descriptors are
 * not validated: a checker wants every URL an author wrote.
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

function stripAsciiWhitespace(s: string): string {
  return s.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "");
}

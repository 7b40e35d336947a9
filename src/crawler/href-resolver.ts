import { MAX_URL_LENGTH, normalizeUrl, type NormalizeResult } from "./normalize.ts";

/**
 * normalizeUrl for every href of one page, with the hrefs most pages hold resolved by string work instead of a
 * `URL` object each (parsing, then the fragment cleared, then the href serialised again: a tenth of a crawl's
 * CPU). The fast path takes only what the WHATWG URL parser leaves as written, so it gives the parser's exact
 * bytes; anything else goes to the parser:
 * - the base is an http(s) URL without user info (its href is canonical, so it is a prefix of its own links);
 * - the href holds only ASCII letters, digits and `-._~!$&()*+,;=:@/?#`: nothing to strip, percent-encode or
 *   decode, no `\`, no `%` (`%2e` is a dot segment to the parser), no whitespace or non-ASCII;
 * - it has no scheme of its own, or starts with the base's own origin followed by `/` (a full URL of the site);
 *   `//host` (another authority) is left to the parser;
 * - its fragment may also hold what the parser keeps there as written: `%` and every other printable ASCII
 *   character but space, `"`, `<`, `>` and `` ` `` (rustdoc's `#impl-From%3CT%3E`).
 * An href whose scheme is not one of the URL standard's special ones (`javascript:`, `mailto:`, `tel:`), with no
 * `/` after its colon, is a link of another scheme without a parse: the parser cannot fail on its opaque path.
 * Paths resolve as the parser's path state does: `.` and `..` segments, `..` never above the root, a final `.`
 * or `..` leaving a trailing slash. test/crawler/href-resolver.test.ts holds it to `new URL` over generated and
 * real hrefs.
 */

/** 1 for the characters an href may hold to take the fast path (see above). */
const PLAIN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/?#") PLAIN[c.charCodeAt(0)] = 1;
/** 1 for the characters a fragment may hold on the fast path: those the parser's fragment state keeps as written. */
const FRAGMENT_PLAIN = new Uint8Array(128);
for (let c = 0x21; c < 0x7f; c++) FRAGMENT_PLAIN[c] = 1;
for (const c of '"<>`') FRAGMENT_PLAIN[c.charCodeAt(0)] = 0;

/** The URL standard's special schemes: their URLs have hosts, so parsing one may fail. */
const SPECIAL_SCHEMES: ReadonlySet<string> = new Set(["http", "https", "ftp", "file", "ws", "wss"]);

const SLASH = 0x2f;
const DOT = 0x2e;
const COLON = 0x3a;

/** Resolves and normalises the hrefs of a page against one base URL (the page's, or its `<base href>`'s). */
export class HrefResolver {
  /** `scheme://host[:port]` as the base's href spells it; null when the fast path cannot apply to this base. */
  private readonly origin: string | null = null;
  /** The base's path (starting with `/`), and its query with the `?` ("" for none). */
  private readonly path: string = "";
  private readonly query: string = "";
  /** The base's path up to and including its last `/`: what a plain relative path is appended to. */
  private readonly directory: string = "";

  constructor(private readonly base: string) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      return;
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") return;
    const href = url.href;
    const origin = `${url.protocol}//${url.host}`;
    if (!href.startsWith(`${origin}/`)) return;
    const hash = href.indexOf("#");
    const withoutHash = hash === -1 ? href : href.slice(0, hash);
    const question = withoutHash.indexOf("?");
    this.path = question === -1 ? withoutHash.slice(origin.length) : withoutHash.slice(origin.length, question);
    this.query = question === -1 ? "" : withoutHash.slice(question);
    this.directory = this.path.slice(0, this.path.lastIndexOf("/") + 1);
    this.origin = origin;
  }

  /**
   * Results by href (a page repeats its hrefs: rustdoc's pages hold ~3 links per distinct href): the URL itself
   * for one without a fragment (most), the parser's result object for the others.
   */
  private readonly resolved = new Map<string, string | NormalizeResult>();

  /** The fragment of the URL `url` gave last (as the parser writes it), undefined when it had none. */
  fragment: string | undefined = undefined;

  /**
   * The URL `raw` names, without its fragment (then in `fragment`); null when it names none that is checked
   * (normalize says why). A string per distinct href and no result object where it has no fragment.
   */
  url(raw: string): string | null {
    const result = this.result(raw);
    if (typeof result === "string") {
      this.fragment = undefined;
      return result;
    }
    this.fragment = result.kind === "url" ? result.fragment : undefined;
    return result.kind === "url" ? result.url : null;
  }

  /** normalizeUrl(raw, base), by the fast path when it applies. */
  normalize(raw: string): NormalizeResult {
    const result = this.result(raw);
    return typeof result === "string" ? { kind: "url", url: result } : result;
  }

  /** The fast path alone: the result normalizeUrl would give, or null when the href is not one it takes. */
  fast(raw: string): NormalizeResult | null {
    const result = this.resolve(raw);
    return typeof result === "string" ? { kind: "url", url: result } : result;
  }

  private result(raw: string): string | NormalizeResult {
    let result = this.resolved.get(raw);
    if (result === undefined) {
      result = this.resolve(raw) ?? normalizeUrl(raw, this.base);
      this.resolved.set(raw, result);
    }
    return result;
  }

  /** The fast path: a URL without fragment as the string itself, any other result as normalizeUrl's; null when it does not apply. */
  private resolve(raw: string): string | NormalizeResult | null {
    const origin = this.origin;
    if (origin === null) return null;
    const length = raw.length;
    let hash = -1;
    let question = -1;
    let schemeEnd = -1;
    let schemeOpen = true; // still inside what could be a scheme: [A-Za-z][A-Za-z0-9+.-]*
    let dotted = false; // a `.` starts a segment of the path: a dot segment may be there
    for (let i = 0; i < length; i++) {
      const c = raw.charCodeAt(i);
      if (c >= 128 || PLAIN[c] === 0) return null;
      if (schemeOpen) {
        if (c === COLON && i > 0) {
          schemeEnd = i;
          schemeOpen = false;
        } else if (!(isAlpha(c) || (i > 0 && (isDigit(c) || c === 0x2b || c === 0x2d || c === DOT)))) schemeOpen = false;
      }
      if (c === 0x23) {
        hash = i;
        break; // the fragment keeps every plain character as written
      }
      if (c === 0x3f && question === -1) question = i;
      else if (c === DOT && question === -1 && (i === 0 || raw.charCodeAt(i - 1) === SLASH)) dotted = true;
    }
    if (hash !== -1) {
      for (let i = hash + 1; i < length; i++) {
        const c = raw.charCodeAt(i);
        if (c >= 128 || FRAGMENT_PLAIN[c] === 0) return null;
      }
    }
    const pathEnd = question !== -1 ? question : hash !== -1 ? hash : length;
    // Path and query as written end where the fragment starts: taken in one piece when no dot segment moves the path.
    const end = hash === -1 ? length : hash;

    let url: string;
    if (schemeEnd !== -1) {
      if (raw.charCodeAt(schemeEnd + 1) !== SLASH && !SPECIAL_SCHEMES.has(raw.slice(0, schemeEnd).toLowerCase())) {
        return { kind: "skip", reason: "unsupported_scheme" };
      }
      // A scheme: only a full URL of the base's own origin is taken, as a path from the root.
      if (!raw.startsWith(origin) || raw.charCodeAt(origin.length) !== SLASH || origin.length >= pathEnd) return null;
      url = dotted ? origin + resolvePath("", raw.slice(origin.length + 1, pathEnd)) + raw.slice(pathEnd, end) : raw.slice(0, end);
    } else if (raw.charCodeAt(0) === SLASH) {
      if (raw.charCodeAt(1) === SLASH) return null; // `//host/…`: another authority
      url = origin + (dotted ? resolvePath("", raw.slice(1, pathEnd)) + raw.slice(pathEnd, end) : raw.slice(0, end));
    } else if (pathEnd === 0) {
      // "", "?q" or "#f": the base's own path, and its query unless the href has one
      url = origin + this.path + (question === -1 ? this.query : raw.slice(0, end));
    } else {
      url = origin + (dotted ? resolvePath(this.directory.slice(1), raw.slice(0, pathEnd)) + raw.slice(pathEnd, end) : this.directory + raw.slice(0, end));
    }
    if (url.length > MAX_URL_LENGTH) return { kind: "skip", reason: "too_long", url };
    if (hash === -1 || hash === length - 1) return url;
    return { kind: "url", url, fragment: raw.slice(hash + 1) };
  }
}

/**
 * `/` + the path the URL parser makes of `relative` (no leading slash, no query or fragment) appended to
 * `directory` (segments ending in `/`, no leading slash; "" for the root).
 */
function resolvePath(directory: string, relative: string): string {
  // Leading `./` and `../` (the usual relative forms) move up the directory without splitting anything.
  let from = 0;
  let dir = directory;
  for (;;) {
    if (relative.startsWith("./", from)) from += 2;
    else if (relative.startsWith("../", from)) {
      from += 3;
      const cut = dir.length < 2 ? -1 : dir.lastIndexOf("/", dir.length - 2);
      dir = dir.slice(0, cut + 1);
    } else break;
  }
  const rest = from === 0 ? relative : relative.slice(from);
  if (!hasDotSegment(rest)) return `/${dir}${rest}`;
  const segments = directory === "" ? [] : directory.slice(0, -1).split("/");
  const parts = relative.split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (part === "..") {
      segments.pop();
      if (last) segments.push("");
    } else if (part === ".") {
      if (last) segments.push("");
    } else segments.push(part);
  }
  return `/${segments.join("/")}`;
}

/** Whether some `/`-separated segment of `path` is `.` or `..`. */
function hasDotSegment(path: string): boolean {
  for (let i = path.indexOf("."); i !== -1; i = path.indexOf(".", i + 1)) {
    if (i > 0 && path.charCodeAt(i - 1) !== SLASH) continue;
    const next = i + 1 < path.length && path.charCodeAt(i + 1) === DOT ? i + 2 : i + 1;
    if (next === path.length || path.charCodeAt(next) === SLASH) return true;
  }
  return false;
}

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

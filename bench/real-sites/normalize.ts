/**
 * One normal form for the target URLs of all three tools, so that a difference in the tables is a
 * difference in what they found, not in how they spell it: WHATWG parse against the page, no fragment, and
 * percent-escapes decoded the way decodeURI does (it leaves reserved characters such as %2F and %3F
 * escaped, so decoding never changes which resource a URL names). wget2 keeps `#frag` in what it records,
 * LinkChecker and linkpatrol drop it; wget2 and linkpatrol keep escapes as written, LinkChecker re-quotes.
 */

/** The normal form of `raw` (resolved against `base` when relative); unparseable input comes back as written. */
export function normalizeTarget(raw: string, base?: string): string {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return raw;
  }
  url.hash = "";
  try {
    return decodeURI(url.href);
  } catch {
    return url.href; // a malformed escape (%E9 alone): keep it as the parser left it
  }
}

/** True when `url` (normal form) is on `origin` (`http://127.0.0.1:PORT`). */
export function onOrigin(url: string, origin: string): boolean {
  return url === origin || url.startsWith(`${origin}/`);
}

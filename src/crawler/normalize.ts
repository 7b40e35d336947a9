import { encodeUnshown } from "../core/visible-text.ts";
import { redactPassword } from "../core/redact.ts";

/**
 * URL normalisation, the one place that decides what a link target is before dedupe: the WHATWG parser plus our
 * rules (http(s) only, no fragment, no password, a length cap against spider traps). href-resolver.ts must give
 * this function's exact result.
 */

/** Longest normalised URL the crawler accepts; longer ones are usually generated paths of a spider trap. */
export const MAX_URL_LENGTH = 2048;

/** Why an href yields no URL to check. */
export type SkipReason =
  | "unsupported_scheme" // mailto:, tel:, javascript:, data:, ftp: … — nothing an HTTP client can check
  | "invalid" // the URL parser refuses it (bad host, bad port, unparseable base)
  | "too_long"; // longer than MAX_URL_LENGTH once normalised

/** What normalising one href came to; a too-long URL keeps its normalised form, for the record. */
export type NormalizeResult =
  | { kind: "url"; url: string /** The fragment as the URL parser wrote it (percent-encoded), when not empty. */; fragment?: string }
  | { kind: "skip"; reason: Exclude<SkipReason, "too_long"> }
  | { kind: "skip"; reason: "too_long"; url: string };

/** The parts of a site's origin that decide whether a URL is internal; a `URL` fits. */
export type SiteOrigin = Pick<URL, "protocol" | "hostname" | "port">;

const CHECKABLE_SCHEMES: ReadonlySet<string> = new Set(["http:", "https:"]);

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/**
 * Resolves `raw` (an attribute value, already entity-decoded) against `base` and normalises it: http(s)
 * only, fragment dropped, scheme and host lowercased, default port dropped, path and query kept as written.
 * An empty href is the base document itself.
 */
export function normalizeUrl(raw: string, base: string | URL): NormalizeResult {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return { kind: "skip", reason: "invalid" };
  }
  if (!CHECKABLE_SCHEMES.has(url.protocol)) return { kind: "skip", reason: "unsupported_scheme" };
  const fragment = url.hash.slice(1);
  url.hash = "";
  redactPassword(url);
  const href = url.href;
  if (href.length > MAX_URL_LENGTH) return { kind: "skip", reason: "too_long", url: href };
  return fragment === "" ? { kind: "url", url: href } : { kind: "url", url: href, fragment };
}

/**
 * True when `url` is on the site's host and effective port (internal pages are those on the same host
 * and port). The scheme only matters through its default port: http://host/ (80) and https://host/ (443) are
 * different sites, while http://host:443/ and https://host/ would be the same one.
 */
export function isInternal(url: URL, site: SiteOrigin): boolean {
  return url.hostname === site.hostname && effectivePort(url) === effectivePort(site);
}

function effectivePort(origin: SiteOrigin): string {
  return origin.port !== "" ? origin.port : (DEFAULT_PORTS[origin.protocol] ?? "");
}

/**
 * How an uncheckable URL is recorded: as written, cut at MAX_URL_LENGTH with its full length noted (bounded, and
 * long URLs of different lengths stay apart); control and bidi characters percent-encoded.
 */
export function recordedForm(written: string): string {
  const urlOrHref = encodeUnshown(written);
  if (urlOrHref.length <= MAX_URL_LENGTH) return urlOrHref;
  let end = MAX_URL_LENGTH;
  const last = urlOrHref.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never split a surrogate pair
  return `${urlOrHref.slice(0, end)}…[${urlOrHref.length} characters]`;
}

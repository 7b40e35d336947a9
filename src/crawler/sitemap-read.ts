import { SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from "../core/sitemap-limits.ts";
import { BodySink } from "../net/body-sink.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import { isInternal, type SiteOrigin } from "./normalize.ts";
import { parseSitemap, type ParsedSitemap } from "./sitemap-parse.ts";

/**
 * Fetching one sitemap under the crawler's policy and robots.txt, capped after decompression. A `.xml.gz` without
 * Content-Encoding is recognised by its magic number and inflated through the same capped decoder.
 */

export { SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS };
const SITEMAP_MAX_REDIRECTS = 5;

/** What reading one sitemap came to. */
export type SitemapRead =
  | { kind: "read"; sitemap: ParsedSitemap /** True when the body went past SITEMAP_MAX_BYTES and was cut. */; cut: boolean }
  | { kind: "failed" /** Why, in words ("answered HTTP 404", "is not valid gzip"…). */; reason: string };

/** What reading a sitemap needs. */
export interface SitemapReadContext {
  fetch: Omit<SafeFetchOptions, "method" | "wantBody" | "signal" | "maxRedirects" | "mayFollow" | "maxBodyBytes">;
  site: SiteOrigin;
  /** Whether robots.txt lets the crawler fetch a URL (each redirect hop). */
  mayFetch?: (url: string) => Promise<boolean>;
  signal: AbortSignal;
}

function isGzip(body: Uint8Array): boolean {
  return body[0] === 0x1f && body[1] === 0x8b;
}

/** Inflates a gzip sitemap up to SITEMAP_MAX_BYTES; null when it is not valid gzip. */
async function gunzip(body: Uint8Array): Promise<{ body: Uint8Array; truncated: boolean } | null> {
  const sink = new BodySink("gzip", SITEMAP_MAX_BYTES);
  sink.write(body);
  try {
    return await sink.end();
  } catch {
    return null;
  }
}

/** Fetches and parses the sitemap at `url`; never throws for network outcomes. */
export async function readSitemap(url: string, context: SitemapReadContext): Promise<SitemapRead> {
  const result = await safeFetch(url, {
    ...context.fetch,
    method: "GET",
    maxBodyBytes: SITEMAP_MAX_BYTES,
    maxRedirects: SITEMAP_MAX_REDIRECTS,
    mayFollow: context.mayFetch,
    signal: context.signal,
    wantBody: (status) => status >= 200 && status <= 299,
  });
  if (result.kind === "error") return { kind: "failed", reason: `could not be fetched: ${result.message}` };
  if (result.notFollowed !== undefined) return { kind: "failed", reason: `redirects to ${result.notFollowed}, which robots.txt disallows` };
  if (result.status < 200 || result.status > 299) return { kind: "failed", reason: `answered HTTP ${result.status}` };
  if (!isInternal(new URL(result.finalUrl), context.site)) return { kind: "failed", reason: `redirects to ${result.finalUrl}, off the crawled site` };
  let body = result.body;
  let cut = result.truncated;
  if (isGzip(body)) {
    const inflated = await gunzip(body);
    if (inflated === null) return { kind: "failed", reason: "is not valid gzip" };
    body = inflated.body;
    cut ||= inflated.truncated;
  }
  return { kind: "read", sitemap: parseSitemap(body, SITEMAP_MAX_URLS), cut };
}

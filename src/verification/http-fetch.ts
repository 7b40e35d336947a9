/**
 * The fetch both HTTP verification methods share, with one overall deadline (`verification.timeout`) because an
 * API client is waiting.
 */
import type { CrawlerFetchOptions } from "../net/crawler-fetch-options.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import type { FetchResponse, SafeFetchResult } from "../net/fetch-result.ts";

/** The crawler's fetch options plus the overall verification deadline (and test-only TLS trust). */
export interface VerificationFetchSettings {
  fetch: CrawlerFetchOptions & Pick<SafeFetchOptions, "ca">;
  timeoutMs: number;
}

/** Redirects a verification URL may take (http → https, apex → www, and a little more). */
const MAX_REDIRECTS = 5;

/** GETs `url` within the verification deadline, following up to `maxRedirects` redirects; never rejects. */
export async function fetchForVerification(
  url: string,
  settings: VerificationFetchSettings,
  maxBodyBytes: number,
  maxRedirects = MAX_REDIRECTS,
): Promise<SafeFetchResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  try {
    return await safeFetch(url, {
      ...settings.fetch,
      method: "GET",
      maxBodyBytes: Math.min(maxBodyBytes, settings.fetch.maxBodyBytes),
      maxRedirects,
      signal: deadline.signal,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Why a fetch did not give a usable page, as a reason; null when it answered 2xx. */
export function unusableAnswer(url: string, result: SafeFetchResult, timeoutMs: number): string | null {
  if (result.kind === "error") {
    // Our own deadline is the only signal we pass, so "aborted" means the verification timeout ran out.
    if (result.error === "aborted") return `GET ${url} got no answer within ${timeoutMs} ms`;
    return `GET ${url} failed: ${result.message}`;
  }
  if (result.status < 200 || result.status > 299) {
    const where = result.finalUrl === url ? "" : ` (redirected to ${result.finalUrl})`;
    return `GET ${url} answered ${result.status}${where}`;
  }
  return null;
}

/** The body as text (UTF-8, byte-order mark dropped). */
export function bodyText(response: FetchResponse): string {
  return new TextDecoder("utf-8").decode(response.body);
}

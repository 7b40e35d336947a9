import type { LinkVerdict } from "../core/link-outcome.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import { decodeHtml, isHtmlContentType } from "./decode.ts";
import { isInternal, type SiteOrigin } from "./normalize.ts";
import { FingerprintReader, fingerprintPage, samePage, urlNeedles, type PageFingerprint } from "./page-fingerprint.ts";

/**
 * Soft 404s: pages that answer 200 but are the site's "not found" page. Once per crawl run the crawler asks
 * the site for a URL that cannot exist; most sites answer 404 and nothing more happens (no page pays anything).
 * Only when that probe answers 2xx with HTML is its page fingerprinted (page-fingerprint.ts), and every parsed
 * internal page is compared with it. A site that answers the probe with its start page (a single-page app's
 * fallback, a catch-all redirect home) gives nothing to compare: detection is off, and a crawl warning says the
 * site answers 200 for missing pages. The start page itself is never flagged. docs/decisions.md, "Soft 404s".
 */

/** What learning the not-found page needs. */
export interface ProbeContext {
  fetch: Omit<SafeFetchOptions, "method" | "wantBody" | "signal" | "maxRedirects" | "mayFollow">;
  site: SiteOrigin;
  mayFetch?: (url: string) => Promise<boolean>;
  signal: AbortSignal;
}

/** What the probe taught: a detector to run on pages, or a crawl warning, or neither. */
export interface NotFoundLesson {
  detector: SoftNotFoundDetector | null;
  warning: string | null;
}

const PROBE_REDIRECTS = 10;

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** A 2xx HTML page of the site at `url` after redirects, decoded; null for anything else. */
async function fetchSitePage(url: string, context: ProbeContext): Promise<{ html: string; finalUrl: string; status: number } | null> {
  if (context.mayFetch !== undefined && !(await context.mayFetch(url))) return null;
  const wanted = (status: number, headers: Record<string, string>) => status >= 200 && status <= 299 && isHtmlContentType(headers["content-type"]);
  const result = await safeFetch(url, { ...context.fetch, method: "GET", wantBody: wanted, maxRedirects: PROBE_REDIRECTS, mayFollow: context.mayFetch, signal: context.signal });
  if (result.kind !== "response" || result.notFollowed !== undefined) return null;
  if (!wanted(result.status, result.headers) || !isInternal(new URL(result.finalUrl), context.site)) return null;
  return { html: decodeHtml(result.body, result.headers["content-type"]), finalUrl: result.finalUrl, status: result.status };
}

/**
 * Asks the site at `root` for a URL that cannot exist and learns its "not found" page when that answers 2xx
 * HTML; `broken` makes the pages found to match it broken links rather than warnings.
 */
export async function learnNotFoundPage(root: URL, context: ProbeContext, broken: boolean): Promise<NotFoundLesson> {
  const probeUrl = `${root.origin}/linkpatrol-missing-${randomHex(12)}`;
  const probe = await fetchSitePage(probeUrl, context);
  if (probe === null) return { detector: null, warning: null };
  const notFound = fingerprintPage(probe.html, urlNeedles(probeUrl, probe.finalUrl));
  const start = await fetchSitePage(root.href, context);
  const startUrls = new Set([root.href]);
  if (start !== null) {
    startUrls.add(start.finalUrl);
    if (samePage(notFound, fingerprintPage(start.html, urlNeedles(root.href, start.finalUrl)))) {
      return {
        detector: null,
        warning:
          // No random part in the text: a resumed crawl probes again, and the same warning must not appear twice.
          `the site answers HTTP ${probe.status} with its start page for a URL that does not exist (${root.origin}/linkpatrol-missing-…): ` +
          "a missing page cannot be told from a real one, so broken internal links may pass as working and soft 404s are not detected",
      };
    }
  }
  return { detector: new SoftNotFoundDetector(notFound, startUrls, broken), warning: null };
}

/** One page compared with the not-found page as it streams in; `isNotFound` once, after the last write. */
export interface NotFoundPageReader {
  write(html: string): void;
  isNotFound(): boolean;
}

/** Compares parsed pages with the site's "not found" page. */
export class SoftNotFoundDetector {
  constructor(
    private readonly notFound: PageFingerprint,
    private readonly startUrls: ReadonlySet<string>,
    private readonly broken: boolean,
  ) {}

  /**
   * A reader for the page asked as `url` that answered 2xx HTML from `finalUrl`: fed the page's text as it is
   * decoded, it tells whether the page is the not-found page. Null for a start page, which never is.
   */
  pageReader(url: string, finalUrl: string): NotFoundPageReader | null {
    if (this.startUrls.has(url) || this.startUrls.has(finalUrl)) return null;
    const reader = new FingerprintReader(urlNeedles(url, finalUrl), this.notFound.title);
    return {
      write: (html) => {
        if (!reader.done) reader.write(html);
      },
      isNotFound: () => samePage(this.notFound, reader.result()),
    };
  }

  /** `verdict` of a soft 404: a `soft_404:` warning first, and broken when the crawl asked for that. */
  mark(verdict: LinkVerdict): LinkVerdict {
    const note = `soft_404: answers HTTP ${verdict.status_code} with the site's "not found" page (the page a URL that does not exist gets)`;
    return { ...verdict, is_broken: verdict.is_broken || this.broken, warning: verdict.warning === null ? note : `${note}; ${verdict.warning}` };
  }
}

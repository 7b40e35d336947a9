import { describeFetchErrorKind, type FetchErrorKind } from "../net/fetch-result.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import { decodeHtml, isHtmlContentType } from "./decode.ts";
import { isInternal, type SiteOrigin } from "./normalize.ts";
import { FingerprintReader, fingerprintPage, samePage, urlNeedles, type PageFingerprint } from "./page-fingerprint.ts";
import { cleanPageText } from "../core/visible-text.ts";

/**
 * Soft 404s: one probe per crawl for a URL that cannot exist; only a 2xx HTML answer leads to a fingerprint that
 * parsed pages are compared with (docs/decisions.md, "Soft 404s"). The start page is never flagged.
 */

/**
 * The longest the whole probe (its two missing URLs and the start page) may take; never longer than a request
 * may take to start answering (the connect and header timeouts together). Pages read meanwhile wait for it at
 * most this long before their verdict.
 */
export const SOFT_404_PROBE_TIMEOUT_MS = 5_000;

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
  /**
   * Whether the crawl can tell a soft 404: the site answers a missing URL with an error status, or its not-found
   * page is known. False when the probe was refused, unanswered, stopped, or could not tell (a warning says why):
   * a soft 404 found broken before is then not checked by this crawl (open-links.ts).
   */
  judged: boolean;
}

/** One page compared with the not-found page as it streams in; `isNotFound` once, after the last write. */
export interface NotFoundPageReader {
  write(html: string): void;
  /** Whether the page is the site's not-found page; waits for the probe when it has not answered yet. */
  isNotFound(): boolean | Promise<boolean>;
}

/** What checking a page asks of soft-404 detection. */
export interface SoftNotFoundCheck {
  /** A reader for the page asked as `url` that answered 2xx HTML from `finalUrl`; null when it needs none. */
  pageReader(url: string, finalUrl: string): NotFoundPageReader | null;
  /** Whether a page found to be a soft 404 is a broken link (`soft_404_broken`), not only a warning. */
  readonly broken: boolean;
}

const PROBE_REDIRECTS = 10;
/** The end of every "cannot tell" warning: what it means for the crawl's results. */
const BLIND = "a missing page cannot be told from a real one, so broken internal links may pass as working and soft 404s are not detected";

/** What one probe request came to. */
type ProbeAnswer =
  | { kind: "page"; status: number; html: string; finalUrl: string }
  /** 2xx, but not an HTML page of the site. */
  | { kind: "not_page"; status: number; contentType: string; offSite: string | null }
  /** Any other status: a missing page the crawl will see as what it is. */
  | { kind: "status"; status: number }
  | { kind: "no_answer"; error: FetchErrorKind }
  /** robots.txt keeps us away (from the URL or a redirect hop). */
  | { kind: "refused" };

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** Asks `url` (GET, redirects followed through robots.txt) and reads a 2xx HTML page of the site whole. */
async function ask(url: string, context: ProbeContext): Promise<ProbeAnswer> {
  if (context.mayFetch !== undefined && !(await context.mayFetch(url))) return { kind: "refused" };
  const wanted = (status: number, headers: Record<string, string>) => status >= 200 && status <= 299 && isHtmlContentType(headers["content-type"]);
  const result = await safeFetch(url, {
    ...context.fetch,
    method: "GET",
    wantBody: wanted,
    maxRedirects: PROBE_REDIRECTS,
    mayFollow: context.mayFetch,
    signal: context.signal,
  });
  if (result.kind === "error") return { kind: "no_answer", error: result.error };
  if (result.notFollowed !== undefined) return { kind: "refused" };
  if (result.status < 200 || result.status > 299) return { kind: "status", status: result.status };
  const final = new URL(result.finalUrl);
  const offSite = isInternal(final, context.site) ? null : final.origin;
  if (offSite !== null || !wanted(result.status, result.headers)) {
    // Only the media type: the header is the site's text, and the warning must read the same in every run.
    const contentType = cleanPageText((result.headers["content-type"] ?? "").split(";")[0]!.trim().slice(0, 100));
    return { kind: "not_page", status: result.status, contentType, offSite };
  }
  return { kind: "page", status: result.status, html: decodeHtml(result.body, result.headers["content-type"]), finalUrl: result.finalUrl };
}

/** A lesson that leaves soft 404s unjudged, with the warning that says why (none when the crawl itself stopped the probe). */
function blind(warning: string | null): NotFoundLesson {
  return { detector: null, warning, judged: false };
}

/** The warning for a probe that got no answer, or null when the crawl itself stopped it. */
function unansweredWarning(error: FetchErrorKind, what: string, timedOut: boolean, limitMs: number, crawlStopped: boolean): string | null {
  if (crawlStopped) return null;
  const why = timedOut ? `had no answer within ${limitMs / 1000} s` : `got no answer (${describeFetchErrorKind(error)})`;
  return `the soft-404 probe (${what}) ${why}: soft 404s are not detected in this crawl, so a missing page that answers 200 passes as working`;
}

/**
 * Learns the site's "not found" page from URLs that cannot exist; `broken` makes matching pages broken links rather
 * than warnings. Bounded by SOFT_404_PROBE_TIMEOUT_MS and the crawl's signal.
 */
export async function learnNotFoundPage(root: URL, context: ProbeContext, broken: boolean): Promise<NotFoundLesson> {
  const limitMs = Math.min(SOFT_404_PROBE_TIMEOUT_MS, context.fetch.connectTimeoutMs + context.fetch.headerTimeoutMs);
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), limitMs);
  const bounded = { ...context, signal: AbortSignal.any([context.signal, timer.signal]) };
  // No random part in any warning: a resumed crawl probes again, and the same warning must not appear twice.
  const asked = `GET ${root.origin}/linkpatrol-missing-…`;
  const unanswered = (error: FetchErrorKind): NotFoundLesson => blind(unansweredWarning(error, asked, timer.signal.aborted, limitMs, context.signal.aborted));
  try {
    const first = `${root.origin}/linkpatrol-missing-${randomHex(12)}`;
    const probe = await ask(first, bounded);
    if (probe.kind === "no_answer") return unanswered(probe.error);
    if (probe.kind === "status") return { detector: null, warning: null, judged: true };
    if (probe.kind === "refused") return blind(null);
    if (probe.kind === "not_page") {
      const answer =
        probe.offSite !== null
          ? `by redirecting off the site (to ${probe.offSite})`
          : `with ${probe.contentType === "" ? "a body without a Content-Type" : probe.contentType}, not an HTML page`;
      return blind(`the site answers HTTP ${probe.status} for a URL that does not exist (${asked}) ${answer}: ${BLIND}`);
    }
    // A second missing URL, and the start page, at once: a page that differs each time teaches nothing.
    const second = `${root.origin}/linkpatrol-missing-${randomHex(12)}`;
    const [again, start] = await Promise.all([ask(second, bounded), ask(root.href, bounded)]);
    if (again.kind === "no_answer") return unanswered(again.error);
    if (start.kind === "no_answer" && timer.signal.aborted) return unanswered(start.error);
    const notFound = fingerprintPage(probe.html, urlNeedles(first, probe.finalUrl));
    if (again.kind !== "page" || !samePage(notFound, fingerprintPage(again.html, urlNeedles(second, again.finalUrl)))) {
      return blind(`the site answers HTTP ${probe.status} for URLs that do not exist (${asked}), with a different page each time: ${BLIND}`);
    }
    const startUrls = new Set([root.href]);
    if (start.kind === "page") {
      startUrls.add(start.finalUrl);
      if (samePage(notFound, fingerprintPage(start.html, urlNeedles(root.href, start.finalUrl)))) {
        return blind(`the site answers HTTP ${probe.status} with its start page for a URL that does not exist (${root.origin}/linkpatrol-missing-…): ${BLIND}`);
      }
    }
    return { detector: new SoftNotFoundDetector(notFound, startUrls, broken), warning: null, judged: true };
  } finally {
    clearTimeout(timeout);
  }
}

/** Compares parsed pages with the site's "not found" page. */
export class SoftNotFoundDetector implements SoftNotFoundCheck {
  constructor(
    private readonly notFound: PageFingerprint,
    private readonly startUrls: ReadonlySet<string>,
    readonly broken: boolean,
  ) {}

  /**
   * A reader for the page asked as `url` that answered 2xx HTML from `finalUrl`: fed the page's text as it is
   * decoded, it tells whether the page is the not-found page. Null for a start page, which never is.
   */
  pageReader(url: string, finalUrl: string): NotFoundPageReader | null {
    if (this.isStart(url, finalUrl)) return null;
    const reader = new FingerprintReader(urlNeedles(url, finalUrl), this.notFound.title);
    return {
      write: (html) => {
        if (!reader.done) reader.write(html);
      },
      isNotFound: () => samePage(this.notFound, reader.result()),
    };
  }

  /** Whether a page read before the probe answered (`page`, its whole fingerprint) is the not-found page. */
  matches(url: string, finalUrl: string, page: PageFingerprint): boolean {
    return !this.isStart(url, finalUrl) && samePage(this.notFound, page);
  }

  private isStart(url: string, finalUrl: string): boolean {
    return this.startUrls.has(url) || this.startUrls.has(finalUrl);
  }
}

/**
 * The soft-404 probe of one crawl run, alongside it: a page read before the probe answers is fingerprinted whole
 * and its verdict waits for the probe (bounded by its own timeout).
 */
export class NotFoundProbe implements SoftNotFoundCheck {
  private lesson: NotFoundLesson | undefined;
  /** The probe's lesson, once it has one; never rejects. */
  readonly settled: Promise<NotFoundLesson>;

  constructor(
    private readonly root: URL,
    context: ProbeContext,
    readonly broken: boolean,
  ) {
    this.settled = learnNotFoundPage(root, context, broken)
      .catch((error: unknown) => blind(`the soft-404 probe failed (${String(error).slice(0, 200)}): soft 404s are not detected in this crawl`))
      .then((lesson) => (this.lesson = lesson));
  }

  pageReader(url: string, finalUrl: string): NotFoundPageReader | null {
    if (this.lesson !== undefined) return this.lesson.detector?.pageReader(url, finalUrl) ?? null;
    if (url === this.root.href || finalUrl === this.root.href) return null;
    const reader = new FingerprintReader(urlNeedles(url, finalUrl));
    return {
      write: (html) => {
        if (!reader.done) reader.write(html);
      },
      isNotFound: async () => {
        const { detector } = await this.settled;
        return detector?.matches(url, finalUrl, reader.result()) ?? false;
      },
    };
  }

  /** The probe's lesson if it has answered yet, else undefined. */
  get learnt(): NotFoundLesson | undefined {
    return this.lesson;
  }
}

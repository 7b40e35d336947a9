import type { LinkOutcome, LinkVerdict, NoAnswerReason } from "../core/link-outcome.ts";
import type { FetchResponse, SafeFetchResult } from "../net/fetch-result.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import type { FrontierTarget } from "../store/frontier.repo.ts";
import { classifyOutcome, pageCutWarning, type PageCut } from "./classify.ts";
import { decodeCss, isCssContentType } from "./css-decode.ts";
import { extractStylesheetLinks } from "./css-extract.ts";
import { isHtmlContentType } from "./decode.ts";
import type { ExtractedLink } from "./extract.ts";
import { isInternal, type SiteOrigin } from "./normalize.ts";
import type { PageIds } from "./page-ids.ts";
import { PageReading } from "./page-reading.ts";
import { retryDecision, type RetryPolicy } from "./retry.ts";
import type { SoftNotFoundCheck } from "./soft-404.ts";

/**
 * Checking one frontier target, start to verdict. Pages (internal targets an anchor points at) are fetched with
 * GET and, when the final answer is a 2xx HTML page on the site, parsed for links. Everything else is asked
 * with HEAD and, when HEAD is refused (an error status or a malformed answer), with GET, never reading a body
 * it does not need. "Slow down" answers are retried per retry.ts before the verdict (classify.ts).
 */

/** A page that was parsed: its final URL (after redirects) and its links in document order. */
export interface ParsedPage {
  url: string;
  links: ExtractedLink[];
  /** Why links past some point of the page are missing, if they are. */
  cut: PageCut | null;
  /** The ids fragments can point at, when the context asked for them (`collectIds`). */
  ids: PageIds | null;
  /** True for a stylesheet of the site, read for the URLs in its CSS; false for an HTML page. */
  stylesheet: boolean;
}

/** Where a page's redirects ended, judged as a target of its own (so it need not be fetched again). */
export interface RedirectEnd {
  url: string;
  internal: boolean;
  verdict: LinkVerdict;
}

/** What checking a target came to; `aborted` results are thrown away and the target stays queued. */
export interface CheckedTarget {
  verdict: LinkVerdict;
  finalUrl: string | null;
  /** For a page fetched through redirects: the final URL's own verdict. */
  redirectEnd: RedirectEnd | null;
  page: ParsedPage | null;
  aborted: boolean;
  /** Why there was no HTTP answer, when there was none. */
  failure: NoAnswerReason | null;
}

/** What checking needs besides the target. */
export interface CheckContext {
  fetch: Omit<SafeFetchOptions, "method" | "wantBody" | "signal" | "maxRedirects" | "mayFollow">;
  /** Links taken from one page at most. */
  maxLinksPerPage: number;
  /** Gather each parsed page's ids, for checking fragments. */
  collectIds?: boolean;
  /** Read the site's stylesheets and the CSS inside pages for the URLs they hold (`scan_stylesheets`). */
  readCss?: boolean;
  /** Whether robots.txt lets the crawler fetch a URL; asked for every redirect hop (the target itself is asked before). */
  mayFetch?: (url: string) => Promise<boolean>;
  /** The ignore rule that excludes a URL (null: none), to say why a redirect into it was not followed. */
  excludedBy?: (url: string) => string | null;
  /**
   * False for a page whose links the crawl will not record (past max_pages or max_depth: frontier.ts keeps only
   * its ids). Such a page is still fetched with GET and judged, and read only for what else is asked of it
   * (ids for fragments, the soft-404 comparison). Every page's links are wanted when not given.
   */
  wantsLinks?: (target: FrontierTarget) => boolean;
  /** The crawl's soft-404 probe (soft-404.ts): parsed pages are compared with the site's 2xx "not found" page, if it has one. */
  softNotFound?: SoftNotFoundCheck | null;
  /** Told the bytes of each page read: the crawl job's GC rhythm (core/gc-rhythm.ts). */
  pageBytesRead?: (bytes: number) => void;
  site: SiteOrigin;
  acceptStatus: ReadonlySet<number>;
  retry: RetryPolicy;
  signal: AbortSignal;
}

/** Redirects followed before "too many redirects" (a loop is caught before that, as `redirect_loop`). */
export const MAX_REDIRECTS = 10;

const NO_BODY = () => false;
/** A page whose body is not read at all (its links are not wanted, nor anything else in it). */
const NOT_READ = Symbol("not read");
const unreadPage = (): { links: ExtractedLink[]; dropped: number; ids: PageIds | null; notFound: boolean | Promise<boolean> } => ({ links: [], dropped: 0, ids: null, notFound: false });
/** Takes a body that is read to its end but not kept. */
const DROP_BODY = () => {};

function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** One fetch, asked again while the answer is a "slow down" that retry.ts agrees to wait for. */
async function fetchWithRetry(
  url: string,
  method: "GET" | "HEAD",
  wantBody: SafeFetchOptions["wantBody"],
  context: CheckContext,
  streamBody?: SafeFetchOptions["streamBody"],
): Promise<SafeFetchResult> {
  // Bounded: retryDecision refuses once policy.maxRetries is reached.
  for (let retries = 0; ; retries++) {
    const result = await safeFetch(url, {
      ...context.fetch,
      method,
      wantBody,
      streamBody,
      maxRedirects: MAX_REDIRECTS,
      mayFollow: context.mayFetch,
      signal: context.signal,
    });
    if (result.kind !== "response") return result;
    const decision = retryDecision({ status: result.status, retryAfter: result.headers["retry-after"] }, retries, context.retry);
    if (!decision.retry || context.signal.aborted) return result;
    await sleep(decision.delayMs, context.signal);
  }
}

function headRefused(result: SafeFetchResult): boolean {
  if (result.kind === "error") return result.error === "protocol";
  return result.status >= 400 && result.status !== 429;
}

function toOutcome(result: SafeFetchResult): LinkOutcome {
  if (result.kind === "response") return { kind: "answered", status: result.status, finalUrl: result.finalUrl };
  return { kind: "no_answer", reason: result.error, message: result.message };
}

/** True when the answer is a page of the crawled site worth parsing. */
function isSitePage(status: number, headers: Record<string, string>, finalUrl: string, site: SiteOrigin): boolean {
  return isSuccess(status) && isHtmlContentType(headers["content-type"]) && isInternal(new URL(finalUrl), site);
}

/** True when the answer is a stylesheet of the crawled site, whose CSS holds links. */
function isSiteStylesheet(status: number, headers: Record<string, string>, finalUrl: string, site: SiteOrigin): boolean {
  return isSuccess(status) && isCssContentType(headers["content-type"]) && isInternal(new URL(finalUrl), site);
}

/** Checks `target` and, for a page or a stylesheet of the site, extracts its links. Never throws for network outcomes. */
export async function checkTarget(target: FrontierTarget, context: CheckContext): Promise<CheckedTarget> {
  // A stylesheet of the site is read whatever linked it; what the answer is decides, not the link's kind.
  const readsCss = context.readCss === true && target.internal;
  const wantsCss = (status: number, headers: Record<string, string>): boolean => readsCss && isSuccess(status) && isCssContentType(headers["content-type"]);
  let result: SafeFetchResult;
  /** The page being read as its body streams in (the last answer's, when a fetch was asked again). */
  let reading: PageReading | typeof NOT_READ | null = null;
  const wantsLinks = context.wantsLinks?.(target) !== false;
  if (target.asPage) {
    // The decision needs the final URL, which wantBody is not told; streamBody is, and decides what is read.
    const wanted = (status: number, headers: Record<string, string>) => (isSuccess(status) && isHtmlContentType(headers["content-type"])) || wantsCss(status, headers);
    const streamBody = (status: number, headers: Record<string, string>, finalUrl: string) => {
      reading = null;
      // A stylesheet answering a page's URL is collected for css-extract, which reads it whole.
      if (wantsCss(status, headers)) return null;
      // An HTML page off the site is read to its end (keeping the connection) but not kept.
      if (!isSitePage(status, headers, finalUrl, context.site)) return DROP_BODY;
      const notFound = context.softNotFound?.pageReader(target.url, finalUrl) ?? null;
      if (!wantsLinks && context.collectIds !== true && notFound === null) {
        reading = NOT_READ;
        return DROP_BODY;
      }
      const page = new PageReading(
        finalUrl,
        headers["content-type"],
        { maxLinks: wantsLinks ? context.maxLinksPerPage : 0, collectIds: context.collectIds === true, scanCss: wantsLinks && context.readCss === true },
        notFound,
        context.pageBytesRead,
      );
      reading = page;
      return page.consumer;
    };
    result = await fetchWithRetry(target.url, "GET", wanted, context, streamBody);
  } else {
    result = await fetchWithRetry(target.url, "HEAD", undefined, context);
    if (headRefused(result) && !context.signal.aborted) result = await fetchWithRetry(target.url, "GET", readsCss ? wantsCss : NO_BODY, context);
    else if (readsCss && result.kind === "response" && isSiteStylesheet(result.status, result.headers, result.finalUrl, context.site) && !context.signal.aborted) {
      // A HEAD has no body: a stylesheet of the site is asked again, with GET, for its text.
      result = await fetchWithRetry(target.url, "GET", wantsCss, context);
    }
  }
  const aborted = result.kind === "error" && result.error === "aborted";
  const outcome = toOutcome(result);
  let verdict = classifyOutcome(outcome, { internal: target.internal, acceptStatus: context.acceptStatus });
  if (result.kind === "response" && result.notFollowed !== undefined) {
    const rule = context.excludedBy?.(result.notFollowed) ?? null;
    const why = rule === null ? "robots.txt disallows" : `the ignore rule ${JSON.stringify(rule)} excludes`;
    verdict = { ...verdict, warning: `redirects to ${result.notFollowed}, which ${why}; not followed` };
  }
  const finalUrl = result.kind === "response" ? result.finalUrl : null;
  let redirectEnd: RedirectEnd | null = null;
  // Only a GET's end is recorded: a HEAD-checked image that redirects to a page must not stand in for the page.
  if (target.asPage && result.kind === "response" && result.redirectChain.length > 0) {
    const internal = isInternal(new URL(result.finalUrl), context.site);
    redirectEnd = { url: result.finalUrl, internal, verdict: classifyOutcome(outcome, { internal, acceptStatus: context.acceptStatus }) };
  }

  let page: ParsedPage | null = null;
  let softNotFound = false;
  const read = reading as PageReading | typeof NOT_READ | null;
  if (target.asPage && result.kind === "response" && read !== null && isSitePage(result.status, result.headers, result.finalUrl, context.site)) {
    const { links, dropped, ids, notFound } = read === NOT_READ ? unreadPage() : read.finish(result.truncated);
    // A promise only for a page read before the probe answered: bounded by the probe's own timeout.
    softNotFound = notFound === true || (notFound !== false && (await notFound));
    const cut: PageCut | null = result.truncated
      ? { limit: "max_body_bytes", value: context.fetch.maxBodyBytes }
      : dropped > 0 && wantsLinks
        ? { limit: "max_links_per_page", value: context.maxLinksPerPage, dropped }
        : null;
    page = { url: result.finalUrl, links, cut, ids, stylesheet: false };
  } else if (readsCss && result.kind === "response" && isSiteStylesheet(result.status, result.headers, result.finalUrl, context.site)) {
    page = readStylesheet(result, context);
  }
  if (page?.cut != null) {
    const warning = pageCutWarning(page.cut, page.stylesheet ? "stylesheet" : "page");
    verdict = { ...verdict, warning };
    if (redirectEnd !== null) redirectEnd = { ...redirectEnd, verdict: { ...redirectEnd.verdict, warning } };
  }
  if (softNotFound && context.softNotFound != null) {
    verdict = context.softNotFound.mark(verdict);
    if (redirectEnd !== null) redirectEnd = { ...redirectEnd, verdict: context.softNotFound.mark(redirectEnd.verdict) };
    // Its links are the not-found page's, resolved under a URL that does not exist: a spider trap, not the site.
    if (page !== null) page = { ...page, links: [] };
  }
  return { verdict, finalUrl, redirectEnd, page, aborted, failure: outcome.kind === "no_answer" ? outcome.reason : null };
}

/**
 * The ids of the internal HTML page at `url` (after its redirects), fetched with GET only for them: for a page
 * linked with a fragment that the crawl did not parse (checked as another kind first). `not_a_page` when the
 * answer is not a 2xx HTML page of the site, so its fragments cannot be judged; `no_answer` when none came.
 */
export async function fetchPageIds(url: string, context: CheckContext): Promise<{ finalUrl: string; ids: PageIds } | "not_a_page" | "no_answer"> {
  let reading: PageReading | null = null;
  const streamBody = (status: number, headers: Record<string, string>, finalUrl: string) => {
    reading = isSitePage(status, headers, finalUrl, context.site) ? new PageReading(finalUrl, headers["content-type"], { maxLinks: 0, collectIds: true }, null, context.pageBytesRead) : null;
    return reading?.consumer ?? DROP_BODY;
  };
  const result = await fetchWithRetry(url, "GET", (status, headers) => isSuccess(status) && isHtmlContentType(headers["content-type"]), context, streamBody);
  if (result.kind !== "response") return "no_answer";
  const read = reading as PageReading | null;
  if (read === null || !isSitePage(result.status, result.headers, result.finalUrl, context.site)) return "not_a_page";
  return { finalUrl: result.finalUrl, ids: read.finish(result.truncated).ids! };
}

/** The links of a stylesheet of the site, its body read in full up to max_body_bytes. */
function readStylesheet(result: FetchResponse, context: CheckContext): ParsedPage {
  const css = decodeCss(result.body, result.headers["content-type"]);
  const { links, dropped } = extractStylesheetLinks(css, result.finalUrl, { maxLinks: context.maxLinksPerPage, cut: result.truncated });
  const cut: PageCut | null = result.truncated
    ? { limit: "max_body_bytes", value: context.fetch.maxBodyBytes }
    : dropped > 0
      ? { limit: "max_links_per_page", value: context.maxLinksPerPage, dropped }
      : null;
  return { url: result.finalUrl, links, cut, ids: null, stylesheet: true };
}

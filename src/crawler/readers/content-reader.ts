import type { BodyReader } from "../../net/body-sink.ts";
import type { FetchResponse } from "../../net/fetch-result.ts";
import type { SafeFetchOptions } from "../../net/safe-fetch.ts";
import type { FrontierTarget } from "../../store/frontier.repo.ts";
import type { Finding, PageCut } from "../classify.ts";
import { isCssContentType } from "../css-decode.ts";
import { isHtmlContentType } from "../decode.ts";
import type { ExtractedLink } from "../extract.ts";
import { isInternal, type SiteOrigin } from "../normalize.ts";
import type { PageIds } from "../page-ids.ts";
import type { PageRecord, PageReuse, ReusedLinks } from "../page-reuse.ts";
import type { SoftNotFoundCheck } from "../soft-404.ts";

/**
 * What every content reader shares: the answer it is offered, the context it reads in, and what it hands back
 * (the parsed page and its findings). The readers themselves sit beside this file, one each; content-readers.ts
 * is the table that picks one for an answer.
 */

/** A final answer (after redirects) as the readers judge it, before its body is read. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  finalUrl: string;
}

/** A page or stylesheet that was read: its final URL (after redirects) and its links in document order. */
export interface ParsedPage {
  url: string;
  links: ExtractedLink[];
  /** Why links past some point of the page are missing, if they are. */
  cut: PageCut | null;
  /** The ids fragments can point at, when the context asked for them (`collectIds`). */
  ids: PageIds | null;
  /** True for a stylesheet of the site, read for the URLs in its CSS; false for an HTML page. */
  stylesheet: boolean;
  /** What the next crawl needs to reuse this HTML page (`recordPages`); absent when nothing is kept. */
  record?: PageRecord | null;
  /** The page's links taken from the previous crawl instead of `links` (page-reuse.ts): it was not parsed. */
  reused?: ReusedLinks | null;
}

/** What reading a body came to: the page (null when nothing of it is kept) and what was found on the way. */
export interface ContentRead {
  page: ParsedPage | null;
  findings: Finding[];
}

/** A body being read: safeFetch's reader for one answer, finished once that body is complete or cut. */
export interface OpenReader extends BodyReader {
  finish(response: FetchResponse): Promise<ContentRead>;
}

/** What the readers need of a target check's context. */
export interface ReadContext {
  fetch: Pick<SafeFetchOptions, "maxBodyBytes">;
  /** Links taken from one page at most. */
  maxLinksPerPage: number;
  /** Gather each parsed page's ids, for checking fragments. */
  collectIds?: boolean;
  /** Read the site's stylesheets and the CSS inside pages for the URLs they hold (`scan_stylesheets`). */
  readCss?: boolean;
  /**
   * False for a page whose links the crawl will not record (past max_pages or max_depth: frontier.ts keeps only
   * its ids). Such a page is still fetched with GET and judged, and read only for what else is asked of it
   * (ids for fragments, the soft-404 comparison). Every page's links are wanted when not given.
   */
  wantsLinks?: (target: FrontierTarget) => boolean;
  /** The crawl's soft-404 probe (soft-404.ts): parsed pages are compared with the site's 2xx "not found" page, if it has one. */
  softNotFound?: SoftNotFoundCheck | null;
  /** Keep each HTML page's validators and body hash for the next crawl (not for `check`'s throwaway store). */
  recordPages?: boolean;
  /** The previous crawl's pages, asked with their validators and reused when unchanged (page-reuse.ts); null: read every page. */
  reuse?: PageReuse | null;
  /** Told the bytes of each page read: the crawl job's GC rhythm (core/gc-rhythm.ts). */
  pageBytesRead?: (bytes: number) => void;
  site: SiteOrigin;
}

/** One kind of content: which answers it reads, and how. */
export interface ContentReader {
  /** Whether this reader reads `answer`, the final answer to `target`. Asked of HEAD answers too, to decide on a GET. */
  reads(answer: Answer, target: FrontierTarget, context: ReadContext): boolean;
  open(answer: Answer, target: FrontierTarget, context: ReadContext): OpenReader;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** True when the answer is a page of the crawled site worth parsing. */
export function isSitePage(answer: Answer, site: SiteOrigin): boolean {
  return isSuccess(answer.status) && isHtmlContentType(answer.headers["content-type"]) && isInternal(new URL(answer.finalUrl), site);
}

/** True when the answer is a stylesheet of the crawled site, whose CSS holds links. */
export function isSiteStylesheet(answer: Answer, site: SiteOrigin): boolean {
  return isSuccess(answer.status) && isCssContentType(answer.headers["content-type"]) && isInternal(new URL(answer.finalUrl), site);
}

/** The cut a read reports: the body at max_body_bytes, else its links at max_links_per_page, else none. */
export function pageCut(truncated: boolean, dropped: number, context: ReadContext): PageCut | null {
  if (truncated) return { limit: "max_body_bytes", value: context.fetch.maxBodyBytes };
  return dropped > 0 ? { limit: "max_links_per_page", value: context.maxLinksPerPage, dropped } : null;
}

/** A body read to its end and dropped: keeps the connection for the next request; nothing of it is kept. */
export const DRAIN: OpenReader = {
  consumer: () => {},
  finish: async () => ({ page: null, findings: [] }),
};

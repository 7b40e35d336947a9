import type { LinkOutcome, LinkVerdict, NoAnswerReason } from "../core/link-outcome.ts";
import type { SafeFetchResult } from "../net/fetch-result.ts";
import type { FrontierTarget } from "../store/frontier.repo.ts";
import { composeVerdict, type Finding } from "./classify.ts";
import { readerFor } from "./content-readers.ts";
import { fetchTarget, fetchWithRetry, type BodyChoice, type FetchPolicyContext } from "./fetch-policy.ts";
import { isInternal } from "./normalize.ts";
import type { PageIds } from "./page-ids.ts";
import { PageReading } from "./page-reading.ts";
import { conditionalHeaders, type StoredPage } from "./page-reuse.ts";
import { openKnownPage } from "./readers/known-page.ts";
import { DRAIN, isSitePage, isSuccess, type OpenReader, type ParsedPage, type ReadContext } from "./readers/content-reader.ts";
import { isHtmlContentType } from "./decode.ts";

/**
 * Checking one frontier target, start to verdict, in three steps: the fetch policy asks it (fetch-policy.ts),
 * the content reader its answer calls for reads the body as it streams in (content-readers.ts), and the verdict
 * is composed once from the outcome and what was found (classify.ts).
 */

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
export interface CheckContext extends FetchPolicyContext, ReadContext {
  fetch: FetchPolicyContext["fetch"];
  /** The ignore rule that excludes a URL (null: none), to say why a redirect into it was not followed. */
  excludedBy?: (url: string) => string | null;
  acceptStatus: ReadonlySet<number>;
}

function toOutcome(result: SafeFetchResult): LinkOutcome {
  if (result.kind === "response") return { kind: "answered", status: result.status, finalUrl: result.finalUrl };
  return { kind: "no_answer", reason: result.error, message: result.message };
}

/**
 * Which reader reads an answer: the content readers' table, except for an answer at the target's own URL to a
 * conditional request for a page the previous crawl read (page-reuse.ts), which may reuse that crawl's links.
 */
function bodyChoice(target: FrontierTarget, context: CheckContext, stored: StoredPage | null): BodyChoice<OpenReader> {
  return {
    wants: (answer) => readerFor(answer, target, context) !== null,
    open(answer) {
      if (stored !== null && answer.finalUrl === target.url && (answer.status === 304 || isSitePage(answer, context.site))) {
        return openKnownPage(answer, target, context, stored);
      }
      return readerFor(answer, target, context)?.open(answer, target, context) ?? null;
    },
  };
}

/** Checks `target` and, for content a reader reads (a page or a stylesheet of the site), extracts its links. Never throws for network outcomes. */
export async function checkTarget(target: FrontierTarget, context: CheckContext): Promise<CheckedTarget> {
  const limits = { maxLinksPerPage: context.maxLinksPerPage, maxBodyBytes: context.fetch.maxBodyBytes };
  const stored = target.asPage ? ((await context.reuse?.storedPage(target.url, limits)) ?? null) : null;
  const asked = stored === null ? context : { ...context, fetch: { ...context.fetch, headers: { ...context.fetch.headers, ...conditionalHeaders(stored) } } };
  let result = await fetchTarget<OpenReader>(target, asked, bodyChoice(target, context, stored));
  let read = result.kind === "response" && result.reader != null ? await result.reader.finish(result) : null;
  if (stored !== null && result.kind === "response" && result.status === 304 && read?.page?.reused == null && !context.signal.aborted) {
    // A 304 that cannot stand for the stored page (it came after a redirect, or the stored links are gone):
    // asked again without validators, so the answer is what a full read would get.
    result = await fetchTarget<OpenReader>(target, context, bodyChoice(target, context, null));
    read = result.kind === "response" && result.reader != null ? await result.reader.finish(result) : null;
  }
  // A 304 that reused the stored page stands for the status that page had (docs/decisions.md, "Incremental audits").
  const reusedStatus = result.kind === "response" && result.status === 304 && read?.page?.reused != null ? stored!.statusCode : null;
  const outcome: LinkOutcome = reusedStatus === null ? toOutcome(result) : { kind: "answered", status: reusedStatus, finalUrl: target.url };
  const found = read?.findings ?? [];
  const notFollowed: Finding[] =
    result.kind === "response" && result.notFollowed !== undefined
      ? [{ kind: "not_followed", url: result.notFollowed, rule: context.excludedBy?.(result.notFollowed) ?? null }]
      : [];
  const verdict = composeVerdict(outcome, [...notFollowed, ...found], { internal: target.internal, acceptStatus: context.acceptStatus });
  let redirectEnd: RedirectEnd | null = null;
  // Only a GET's end is recorded: a HEAD-checked image that redirects to a page must not stand in for the page.
  if (target.asPage && result.kind === "response" && result.redirectChain.length > 0) {
    const internal = isInternal(new URL(result.finalUrl), context.site);
    redirectEnd = { url: result.finalUrl, internal, verdict: composeVerdict(outcome, found, { internal, acceptStatus: context.acceptStatus }) };
  }
  return {
    verdict,
    finalUrl: result.kind === "response" ? result.finalUrl : null,
    redirectEnd,
    page: read?.page ?? null,
    aborted: result.kind === "error" && result.error === "aborted",
    failure: outcome.kind === "no_answer" ? outcome.reason : null,
  };
}

/**
 * The ids of the internal HTML page at `url`, fetched with GET only for them (a fragment's page the crawl did not
 * parse). `not_a_page`: not a 2xx HTML page of the site; `no_answer`: none came.
 */
export async function fetchPageIds(url: string, context: CheckContext): Promise<{ finalUrl: string; ids: PageIds } | "not_a_page" | "no_answer"> {
  const result = await fetchWithRetry<PageReading | OpenReader>(url, "GET", context, (status, headers, finalUrl) => {
    if (isSitePage({ status, headers, finalUrl }, context.site))
      return new PageReading(finalUrl, headers["content-type"], { maxLinks: 0, collectIds: true }, null, context.pageBytesRead);
    return isSuccess(status) && isHtmlContentType(headers["content-type"]) ? DRAIN : null;
  });
  if (result.kind !== "response") return "no_answer";
  if (!(result.reader instanceof PageReading)) return "not_a_page";
  return { finalUrl: result.finalUrl, ids: result.reader.finish(result.truncated).ids! };
}

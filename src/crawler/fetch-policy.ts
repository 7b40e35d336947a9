import type { BodyReader } from "../net/body-sink.ts";
import type { SafeFetchResult } from "../net/fetch-result.ts";
import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import type { FrontierTarget } from "../store/frontier.repo.ts";
import type { Answer } from "./readers/content-reader.ts";
import { retryDecision, type RetryPolicy } from "./retry.ts";

/**
 * How a target is asked: pages with GET; everything else with HEAD, and GET only when HEAD is refused or a reader
 * wants the body. Redirects are followed hop by hop through robots.txt.
 */

/** Redirects followed before "too many redirects" (a loop is caught before that, as `redirect_loop`). */
export const MAX_REDIRECTS = 10;

/** What fetching needs besides the target. */
export interface FetchPolicyContext {
  fetch: Omit<SafeFetchOptions, "method" | "wantBody" | "bodyReader" | "signal" | "maxRedirects" | "mayFollow">;
  /** Whether robots.txt lets the crawler fetch a URL; asked for every redirect hop (the target itself is asked before). */
  mayFetch?: (url: string) => Promise<boolean>;
  retry: RetryPolicy;
  signal: AbortSignal;
}

/** Which bodies are read, and by whom: `wants` is asked of HEAD answers too; `open` of a GET's final answer. */
export interface BodyChoice<R extends BodyReader> {
  wants(answer: Answer): boolean;
  open(answer: Answer): R | null;
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
export async function fetchWithRetry<R extends BodyReader>(
  url: string,
  method: "GET" | "HEAD",
  context: FetchPolicyContext,
  bodyReader?: (status: number, headers: Record<string, string>, finalUrl: string) => R | null,
): Promise<SafeFetchResult<R>> {
  // Bounded: retryDecision refuses once policy.maxRetries is reached.
  for (let retries = 0; ; retries++) {
    const result = await safeFetch<R>(url, {
      ...context.fetch,
      method,
      bodyReader,
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

/** Asks `target` as the policy says; the body of the final answer goes to the reader `body` opens for it, if any. */
export async function fetchTarget<R extends BodyReader>(target: FrontierTarget, context: FetchPolicyContext, body: BodyChoice<R>): Promise<SafeFetchResult<R>> {
  const open = (status: number, headers: Record<string, string>, finalUrl: string) => body.open({ status, headers, finalUrl });
  if (target.asPage) return fetchWithRetry(target.url, "GET", context, open);
  const head = await fetchWithRetry<R>(target.url, "HEAD", context);
  if (context.signal.aborted) return head;
  if (headRefused(head) || (head.kind === "response" && body.wants(head))) return fetchWithRetry(target.url, "GET", context, open);
  return head;
}

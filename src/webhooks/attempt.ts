/**
 * One HTTP attempt of an outbox delivery → one typed outcome (the svix model), through safeFetch so the address is
 * pinned each time and a 3xx is a failure, never followed. One deadline covers the whole attempt, so "2xx within
 * the timeout" means the complete answer arrived within it.
 */
import { VERSION } from "../core/version.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { parseRetryAfter } from "../net/retry-after.ts";
import { safeFetch } from "../net/safe-fetch.ts";

/** What to send, exactly. */
export interface OutgoingRequest {
  url: string;
  method: "POST" | "PUT";
  headers: Record<string, string>;
  body: string;
}

/** How to send it. */
interface AttemptOptions {
  policy: AddressPolicy;
  /** Name resolution; defaults to the system resolver. */
  resolve?: Resolve;
  /** The whole attempt: DNS, connect, TLS, headers and the (capped) body. */
  timeoutMs: number;
  /** PEM certificates trusted instead of the system roots. */
  ca?: string | string[];
  /** Appended to "private or reserved address" errors: the key that would allow it. */
  policyHint: string;
  signal?: AbortSignal;
}

/** What one attempt came to. `statusCode` is null when no HTTP answer arrived. */
export type AttemptOutcome =
  | { kind: "delivered"; statusCode: number | null; durationMs: number; responseBody: string }
  | {
      kind: "failed";
      statusCode: number | null;
      durationMs: number;
      error: string;
      responseBody: string;
      /** What the receiver asked for with Retry-After on a 429 or 503; null otherwise. */
      retryAfterMs: number | null;
      /** True on 410 Gone: the receiver wants no more deliveries, and the target is disabled. */
      gone: boolean;
    };

/** How much of a receiver's answer is kept with the attempt. */
const RESPONSE_BODY_LIMIT = 1024;
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** A failure without an HTTP answer (refused, dropped, timed out, an SMTP error). */
export function failedWithoutAnswer(durationMs: number, error: string, responseBody = ""): AttemptOutcome {
  return { kind: "failed", statusCode: null, durationMs, error, responseBody, retryAfterMs: null, gone: false };
}

/** Why a non-2xx answer is a failure, in words for the deliveries list. */
function statusError(status: number, headers: Record<string, string>): string {
  if (status >= 300 && status < 400) {
    const location = headers.location === undefined ? "" : ` to ${headers.location}`;
    return `HTTP ${status}: redirects are not followed (redirect${location})`;
  }
  if (status === 410) return "HTTP 410 Gone: the receiver asked for no more deliveries";
  return `HTTP ${status}: only a 2xx answer counts as delivered`;
}

/** Sends one attempt of `request`; resolves to its outcome and never rejects for network outcomes. */
export async function requestOnce(request: OutgoingRequest, options: AttemptOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  // Our own timer rather than AbortSignal.timeout(): see the note on Bun's timeout signals in safe-fetch.ts.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([options.signal, deadline.signal]);

  try {
    const result = await safeFetch(request.url, {
      policy: options.policy,
      resolve: options.resolve,
      method: request.method,
      body: request.body,
      headers: request.headers,
      userAgent: `linkpatrol/${VERSION}`,
      connectTimeoutMs: options.timeoutMs,
      headerTimeoutMs: options.timeoutMs,
      bodyTimeoutMs: options.timeoutMs,
      maxBodyBytes: RESPONSE_BODY_LIMIT,
      maxRedirects: 0,
      ca: options.ca,
      policyHint: options.policyHint,
      signal,
    });

    if (result.kind === "error") {
      // Our deadline and safeFetch's own phase budgets are the same length: whichever fires first, it is the attempt's timeout.
      const ourDeadline = result.error === "aborted" && deadline.signal.aborted && options.signal?.aborted !== true;
      if (ourDeadline || result.error === "timeout") {
        return failedWithoutAnswer(elapsed(), `timed out: no complete answer within ${options.timeoutMs} ms`);
      }
      return failedWithoutAnswer(elapsed(), result.message);
    }

    const durationMs = elapsed();
    // stream: a character cut in two by the byte cap is dropped, not turned into U+FFFD.
    const responseBody = new TextDecoder().decode(result.body, { stream: true });
    if (result.status >= 200 && result.status < 300) {
      return { kind: "delivered", statusCode: result.status, durationMs, responseBody };
    }
    const retryAfterMs = RETRY_AFTER_STATUSES.has(result.status) ? parseRetryAfter(result.headers["retry-after"]) : null;
    return {
      kind: "failed",
      statusCode: result.status,
      durationMs,
      error: statusError(result.status, result.headers),
      responseBody,
      retryAfterMs,
      gone: result.status === 410,
    };
  } finally {
    clearTimeout(timer);
  }
}

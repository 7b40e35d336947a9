/**
 * The outcome of a safeFetch as a tagged union: an HTTP answer, or a named reason why there was none.
 * Network failures are values, not exceptions, so a crawler or a verifier records them like any other result
 * and matches on `error`, never on message text.
 */

import type { NoAnswerReason } from "../core/link-outcome.ts";
import type { BodyReader } from "./body-sink.ts";

/** Why a fetch produced no HTTP answer (the same reasons a crawled link records). */
export type FetchErrorKind = NoAnswerReason;

/** An HTTP answer (after redirects were followed, if any); `R` is the caller's body reader, if it opened one. */
export interface FetchResponse<R extends BodyReader = BodyReader> {
  kind: "response";
  status: number;
  /** Header names in lower case; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  /** The decoded body, at most `maxBodyBytes` long; empty when a `bodyReader`'s consumer took it. */
  body: Uint8Array;
  /** True when the body was cut at `maxBodyBytes` (after decompression). */
  truncated: boolean;
  finalUrl: string;
  /** Every URL that answered with a redirect, in order; empty when the first URL answered. */
  redirectChain: string[];
  /** Set when a redirect was not followed because the caller's `mayFollow` refused it: where it pointed. */
  notFollowed?: string;
  /** The reader `bodyReader` opened for this answer's body; null or absent when the body was not read. */
  reader?: R | null;
}

/** No HTTP answer: which kind of failure, a human-readable message, and the URL of the failing hop. */
export interface FetchError {
  kind: "error";
  error: FetchErrorKind;
  message: string;
  url: string;
}

/** What safeFetch resolves to; it never rejects for network outcomes. */
export type SafeFetchResult<R extends BodyReader = BodyReader> = FetchResponse<R> | FetchError;

const SHORT_DESCRIPTIONS: Record<FetchErrorKind, string> = {
  unsafe_url: "address not allowed",
  invalid_url: "invalid URL",
  dns: "DNS lookup failed",
  refused: "connection refused",
  tls: "TLS error",
  timeout: "timed out",
  too_many_redirects: "too many redirects",
  redirect_loop: "redirect loop",
  protocol: "malformed HTTP response",
  aborted: "aborted",
};

/** A few words naming the failure kind, for reasons shown to users ("connection refused"). */
export function describeFetchErrorKind(kind: FetchErrorKind): string {
  return SHORT_DESCRIPTIONS[kind];
}

/** Builds an error result. */
export function fetchError(error: FetchErrorKind, url: string, message: string): FetchError {
  return { kind: "error", error, message, url };
}

/**
 * What checking one link target came to, as a tagged union (after lychee's Status): an HTTP answer after
 * redirects, or no answer with a named reason. The crawler turns an outcome into the stored verdict
 * (crawler/classify.ts); nothing matches on message text.
 */

/** Why there was no HTTP answer. */
export type NoAnswerReason =
  | "unsafe_url" // scheme other than http/https, or an address the policy refuses
  | "invalid_url" // not a URL, or a redirect Location that does not parse
  | "dns" // the name does not resolve
  | "refused" // connection refused or reset before an answer
  | "tls" // certificate or handshake failure
  | "timeout" // connect, header or body deadline passed
  | "too_many_redirects"
  | "redirect_loop"
  | "protocol" // malformed HTTP, or a body that does not decode
  | "aborted"; // the check was cancelled

export type LinkOutcome =
  /** The final answer after redirects; `finalUrl` differs from the target when it redirected. */
  | { kind: "answered"; status: number; finalUrl: string }
  /** No HTTP answer; `message` says what happened, for people. */
  | { kind: "no_answer"; reason: NoAnswerReason; message: string };

/** The stored judgement of a link: the API's status_code and is_broken, plus why. */
export interface LinkVerdict {
  /** The final HTTP status, or 0 when there was no answer. */
  status_code: number;
  is_broken: boolean;
  /** Set when there was no answer: what went wrong. */
  error: string | null;
  /** Set when an answer is not counted as broken although it looks like a failure (bot walls). */
  warning: string | null;
}

/**
 * Bun fetch errors to a FetchErrorKind, matched on `code`, never the message. Bun reports TLS against a plain-HTTP
 * port as ECONNREFUSED, so that reads as "refused".
 */
import type { FetchErrorKind } from "./fetch-result.ts";

const REFUSED_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EPIPE",
  "EADDRNOTAVAIL",
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
  "UnableToConnect",
]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "Timeout"]);
const PROTOCOL_CODE = /^(HPE_|Malformed_|ERR_INVALID_HTTP|ERR_HTTP_|InvalidHTTP|Invalid|Unexpected)/;
const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER|DECRYPT)|HANDSHAKE/i;

/** Plainer words for the codes users meet most; others are named by the kind's description. */
const PLAIN_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection closed before the response was complete",
  ConnectionClosed: "connection closed before the response was complete",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/** A few words for a failure code ("connection refused"), or null when there is nothing plainer than the kind. */
export function plainWordsFor(code: string): string | null {
  return PLAIN_WORDS[code] ?? null;
}

/** The `code` of an error-like value, or "" when it has none. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Classifies a connection or HTTP-parsing failure; unknown codes count as a failed connection. */
export function classifyNetworkError(error: unknown): FetchErrorKind {
  const code = errorCode(error);
  if (REFUSED_CODES.has(code)) return "refused";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (TLS_CODE.test(code)) return "tls";
  if (PROTOCOL_CODE.test(code)) return "protocol";
  return "refused";
}

/**
 * The SSRF-safe HTTP client. Every hop is checked, resolved once (refused if ANY address is disallowed) and
 * pinned; redirects are followed here so each Location is checked like a new URL.
 */
import { redactPassword } from "../core/redact.ts";
import { VERSION } from "../core/version.ts";
import { isAddressAllowed, type AddressPolicy } from "./address-policy.ts";
import type { BodyReader } from "./body-sink.ts";
import { fetchError, type FetchError, type SafeFetchResult } from "./fetch-result.ts";
import { errorCode } from "./network-error.ts";
import { openPinned, type PinnedExchange } from "./pinned-request.ts";
import { bareHostname, ipLiteral, systemResolve, type Resolve, type ResolvedAddress } from "./resolve.ts";

/** How to fetch: the address policy, the limits, and who we say we are. */
export interface SafeFetchOptions<R extends BodyReader = BodyReader> {
  policy: AddressPolicy;
  /** Name resolution; defaults to the system resolver. */
  resolve?: Resolve;
  method?: "GET" | "HEAD" | "POST" | "PUT";
  /** Request body (POST, PUT); sent with Content-Length. A 301/302/303 turns a POST into a body-less GET. */
  body?: string | Uint8Array;
  /** Extra request headers; Host, Content-Length, User-Agent and Accept-Encoding are always set by safeFetch. */
  headers?: Record<string, string>;
  /**
   * The origin `headers` are meant for (default: the first URL's). Requests and redirect hops to any other
   * origin carry none of them: a staging site's Authorization must not reach the hosts it links to.
   */
  headersOrigin?: string;
  /** Budget for DNS and for the TCP/TLS connection (see pinned-request.ts for how it combines). */
  connectTimeoutMs: number;
  /** Budget for the response headers once connected. */
  headerTimeoutMs: number;
  /** Budget for the whole body once the headers are in. */
  bodyTimeoutMs: number;
  /** Cap on the decoded body; a longer body is cut and marked `truncated`. */
  maxBodyBytes: number;
  /**
   * Whether the final answer's body is wanted; when it says no, the connection is dropped instead of reading
   * the body and the result carries an empty one. Default: always read.
   */
  wantBody?: (status: number, headers: Record<string, string>) => boolean;
  /**
   * Opens a reader for a final answer's body; with a consumer the body is streamed and never held whole (the
   * result's body is then empty). Null: the body is not wanted and the connection is dropped.
   */
  bodyReader?: (status: number, headers: Record<string, string>, finalUrl: string) => R | null;
  /** Asked before following each redirect; false returns the redirect answer with `notFollowed` set. */
  mayFollow?: (next: string) => boolean | Promise<boolean>;
  /** How many redirects to follow; 0 returns a 3xx answer as it is. */
  maxRedirects: number;
  /** User-Agent header; "{version}" is replaced with the running version. */
  userAgent: string;
  /** How the operator may allow a refused address, appended to unsafe_url messages; default names the crawler keys. */
  policyHint?: string;
  /** PEM certificates to trust instead of the system roots (private PKI, tests). */
  ca?: string | string[];
  signal?: AbortSignal;
}

const EMPTY_BODY = new Uint8Array(0);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Redirects after which a POST is re-sent as a GET without its body (RFC 9110 §15.4, as browsers do). */
const METHOD_CHANGING_REDIRECTS = new Set([301, 302, 303]);
const DEFAULT_POLICY_HINT = "allow it with crawler.allow_private_networks or crawler.allowed_cidrs";
/** A name with several addresses is tried on this many of them when connections are refused. */
const MAX_ADDRESS_ATTEMPTS = 3;

/** The caller's headers, lower-cased, without those safeFetch sets itself. */
function callerHeaders(options: SafeFetchOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  delete headers.host;
  // The body's length is measured when it is sent (pinned-request.ts); a caller's figure could only be wrong.
  delete headers["content-length"];
  delete headers["user-agent"];
  delete headers["accept-encoding"];
  return headers;
}

/** The headers every request carries, to any origin. */
function ownHeaders(options: SafeFetchOptions): Record<string, string> {
  return {
    "user-agent": options.userAgent.replaceAll("{version}", VERSION),
    // Only encodings body-sink.ts decodes (and caps after decoding) may be asked for.
    "accept-encoding": "gzip, deflate, br",
  };
}

/** A hop's URL as it is reported: no fragment, and no password (redact.ts); requests never carry either. */
function withoutFragment(url: URL): URL {
  const copy = new URL(url.href);
  copy.hash = "";
  return redactPassword(copy);
}

function withTimeout<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T | "timeout" | "aborted"> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve("timeout"), ms);
    const onAbort = () => resolve("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

/** Resolves the hop's host once and returns its addresses, or why it must not be contacted. */
async function checkedAddresses(url: URL, options: SafeFetchOptions): Promise<ResolvedAddress[] | FetchError> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fetchError("unsafe_url", url.href, `the ${url.protocol} scheme is not allowed; only http and https are`);
  }
  const hostname = bareHostname(url.hostname);
  const literal = ipLiteral(hostname);
  let addresses: ResolvedAddress[];
  if (literal !== null) {
    addresses = [literal];
  } else {
    const resolve = options.resolve ?? systemResolve;
    let answer: ResolvedAddress[] | "timeout" | "aborted";
    try {
      answer = await withTimeout(resolve(hostname), options.connectTimeoutMs, options.signal);
    } catch (error) {
      return fetchError("dns", url.href, `DNS lookup of ${hostname} failed (${errorCode(error) || String(error)})`);
    }
    if (answer === "aborted") return fetchError("aborted", url.href, "the request was cancelled");
    if (answer === "timeout") {
      return fetchError("dns", url.href, `DNS lookup of ${hostname} timed out after ${options.connectTimeoutMs} ms`);
    }
    if (answer.length === 0) return fetchError("dns", url.href, `DNS lookup of ${hostname} returned no address`);
    addresses = answer;
  }
  const refused = addresses.find((entry) => !isAddressAllowed(entry.address, options.policy));
  if (refused !== undefined) {
    const subject = literal !== null ? refused.address : `${hostname} resolves to ${refused.address}, which`;
    return fetchError("unsafe_url", url.href, `${subject} is a private or reserved address; ${options.policyHint ?? DEFAULT_POLICY_HINT}`);
  }
  return addresses;
}

/** Connects to the first address that does not refuse the connection. */
async function openAny(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  options: SafeFetchOptions,
): Promise<PinnedExchange | FetchError> {
  let last: PinnedExchange | FetchError | undefined;
  for (const address of addresses.slice(0, MAX_ADDRESS_ATTEMPTS)) {
    last = await openPinned({ ...options, url, address, headers, method: options.method ?? "GET", body: options.body });
    if (!("kind" in last) || last.error !== "refused") return last;
  }
  return last!;
}

/** Fetches `url` under the address policy, following redirects hop by hop; never rejects for network outcomes. */
export async function safeFetch<R extends BodyReader = BodyReader>(url: string, options: SafeFetchOptions<R>): Promise<SafeFetchResult<R>> {
  let current: URL;
  try {
    current = withoutFragment(new URL(url));
  } catch {
    return fetchError("invalid_url", url, `not a valid URL: ${url}`);
  }
  if (options.signal !== undefined) {
    // Bun 1.3.14 cancels an AbortSignal.timeout() for good once its listener count drops back to zero, and every
    // phase below adds and removes its own listener. A dependent signal keeps the caller's signal listened to,
    // so neither theirs nor ours is silently disarmed.
    options = { ...options, signal: AbortSignal.any([options.signal]) };
  }
  let extra = callerHeaders(options);
  const own = ownHeaders(options);
  const headersOrigin = options.headersOrigin ?? current.origin;
  const redirectChain: string[] = [];
  const visited = new Set<string>();

  // Each turn either returns or records one more redirect, and redirects are capped: the loop is bounded.
  for (;;) {
    if (options.signal?.aborted) return fetchError("aborted", current.href, "the request was cancelled");
    const addresses = await checkedAddresses(current, options);
    if ("kind" in addresses) return addresses;
    const headers = current.origin === headersOrigin ? { ...extra, ...own } : own;
    const exchange = await openAny(current, addresses, headers, options);
    if ("kind" in exchange) return exchange;

    const location = exchange.headers.location;
    if (options.maxRedirects === 0 || !REDIRECT_STATUSES.has(exchange.status) || location === undefined) {
      const { status, headers: responseHeaders } = exchange;
      const wanted = options.wantBody === undefined || options.wantBody(status, responseHeaders);
      const reader = wanted && options.bodyReader !== undefined ? options.bodyReader(status, responseHeaders, current.href) : undefined;
      if (!wanted || reader === null) {
        exchange.discard();
        return { kind: "response", status, headers: responseHeaders, body: EMPTY_BODY, truncated: false, finalUrl: current.href, redirectChain, reader: null };
      }
      const body = await exchange.readBody(reader?.consumer);
      if ("kind" in body) return body;
      return { kind: "response", status, headers: responseHeaders, ...body, finalUrl: current.href, redirectChain, reader };
    }
    exchange.discard();
    redirectChain.push(current.href);
    visited.add(current.href);

    let next: URL;
    try {
      next = withoutFragment(new URL(location, current));
    } catch {
      return fetchError("protocol", current.href, `redirect to an invalid Location: ${location}`);
    }
    if (visited.has(next.href)) {
      return fetchError("redirect_loop", next.href, `redirect loop: ${[...redirectChain, next.href].join(" → ")}`);
    }
    if (redirectChain.length > options.maxRedirects) {
      return fetchError("too_many_redirects", next.href, `more than ${options.maxRedirects} redirects`);
    }
    if (options.mayFollow !== undefined && !(await options.mayFollow(next.href))) {
      // The caller may not go there (robots.txt): the redirect answer itself is the result.
      redirectChain.pop();
      const { status, headers: responseHeaders } = exchange;
      return {
        kind: "response",
        status,
        headers: responseHeaders,
        body: EMPTY_BODY,
        truncated: false,
        finalUrl: current.href,
        redirectChain,
        notFollowed: next.href,
      };
    }
    if (options.method === "POST" && METHOD_CHANGING_REDIRECTS.has(exchange.status)) {
      options = { ...options, method: "GET", body: undefined };
      extra = { ...extra };
      delete extra["content-type"];
    }
    current = next;
  }
}

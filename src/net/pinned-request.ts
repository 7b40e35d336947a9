/**
 * One HTTP exchange with an already checked IP: the URL names the IP, so nothing resolves the name again
 * (no DNS rebinding); the hostname goes only as Host and SNI. A body nobody reads to its end aborts its
 * connection (docs/decisions.md, "A body we do not want is hung up on").
 */
import { type BodyConsumer, BodySink, type CollectedBody } from "./body-sink.ts";
import { describeFetchErrorKind, fetchError, type FetchError } from "./fetch-result.ts";
import { classifyNetworkError, errorCode, plainWordsFor } from "./network-error.ts";
import { ipLiteral, type ResolvedAddress } from "./resolve.ts";

/** Everything one exchange needs; `headers` are sent as given, plus Host (and Content-Length with a body). */
interface PinnedRequest {
  url: URL;
  address: ResolvedAddress;
  method: "GET" | "HEAD" | "POST" | "PUT";
  headers: Record<string, string>;
  /** Request body, sent as given (POST); strings go out as UTF-8. */
  body?: string | Uint8Array;
  connectTimeoutMs: number;
  headerTimeoutMs: number;
  bodyTimeoutMs: number;
  maxBodyBytes: number;
  ca?: string | string[];
  signal?: AbortSignal;
}

/** Response headers have arrived; the body is still on the wire. */
export interface PinnedExchange {
  status: number;
  headers: Record<string, string>;
  /**
   * Reads and decodes the body within the body deadline and the byte cap; with a consumer, the decoded bytes go
   * to it as they arrive and the result's body is empty.
   */
  readBody(consumer?: BodyConsumer): Promise<CollectedBody | FetchError>;
  /** Drops the body (used for redirects and answers whose bodies nobody reads) without taking it in. */
  discard(): void;
}

/** Announced bodies up to this size are drained on discard, keeping the connection for the next request. */
const DRAIN_MAX_BYTES = 64 * 1024;
/**
 * A body handed to a consumer is read by the engine in one go up to this announced size (cheaper per page than a
 * JavaScript stream), and streamed above it, so a big page is never held whole.
 */
const WHOLE_READ_MAX_BYTES = 256 * 1024;

function flattenHeaders(raw: Headers): Record<string, string> {
  const headers: Record<string, string> = {};
  raw.forEach((value, name) => {
    // Joined below with "\n": a list of cookies is not a comma-separated list.
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = raw.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies.join("\n");
  return headers;
}

function endpoint(address: ResolvedAddress, url: URL): string {
  return `${hostOf(address)}:${portOf(url)}`;
}

function hostOf(address: ResolvedAddress): string {
  return address.family === 6 ? `[${address.address}]` : address.address;
}

function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

function networkFailure(error: unknown, request: PinnedRequest): FetchError {
  const kind = classifyNetworkError(error);
  const code = errorCode(error);
  const suffix = code === "" ? "" : ` (${code})`;
  const words = plainWordsFor(code) ?? describeFetchErrorKind(kind);
  return fetchError(kind, request.url.href, `${words}: ${endpoint(request.address, request.url)}${suffix}`);
}

function abortedFailure(request: PinnedRequest): FetchError {
  return fetchError("aborted", request.url.href, "the request was cancelled");
}

/** Aborts `controller` when `signal` does; returns the function that stops listening. */
function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (signal === undefined) return () => {};
  const onAbort = () => controller.abort();
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** Sends the request to the pinned address and waits for the response headers. */
export async function openPinned(request: PinnedRequest): Promise<PinnedExchange | FetchError> {
  const { url, signal } = request;
  if (signal?.aborted) return abortedFailure(request);
  const tlsName = ipLiteral(url.hostname) === null ? url.hostname : undefined;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = { ...request.headers, host: url.host };
  // An explicit length, never chunked encoding: receivers (and their signature checks) see one plain body.
  if (body !== undefined) headers["content-length"] = String(body.length);

  const controller = new AbortController();
  const unfollow = follow(signal, controller);
  const headerBudget = request.connectTimeoutMs + request.headerTimeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, headerBudget);

  let response: Response;
  try {
    response = await fetch(`${url.protocol}//${hostOf(request.address)}:${portOf(url)}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      decompress: false,
      signal: controller.signal,
      tls: { serverName: tlsName, ca: request.ca },
    } as RequestInit);
  } catch (error) {
    if (timedOut) {
      return fetchError(
        "timeout",
        url.href,
        `no response headers from ${endpoint(request.address, url)} within ${headerBudget} ms ` +
          `(connect ${request.connectTimeoutMs} ms + header ${request.headerTimeoutMs} ms)`,
      );
    }
    if (signal?.aborted) return abortedFailure(request);
    return networkFailure(error, request);
  } finally {
    clearTimeout(timer);
    unfollow();
  }
  return {
    status: response.status,
    headers: flattenHeaders(response.headers),
    readBody: (consumer) => readBody(request, response, controller, consumer),
    discard: () => discard(request, response, controller),
  };
}

/** Drains a small announced body within the body deadline; closes the connection for anything else. */
function discard(request: PinnedRequest, response: Response, controller: AbortController): void {
  if (request.method === "HEAD" || response.body === null) return;
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!Number.isInteger(length) || length > DRAIN_MAX_BYTES) {
    controller.abort();
    return;
  }
  const timer = setTimeout(() => controller.abort(), request.bodyTimeoutMs);
  void response
    .arrayBuffer()
    .catch(() => {})
    .finally(() => clearTimeout(timer));
}

async function readBody(
  request: PinnedRequest,
  response: Response,
  controller: AbortController,
  consumer: BodyConsumer | undefined,
): Promise<CollectedBody | FetchError> {
  const { signal, url } = request;
  if (signal?.aborted) {
    controller.abort();
    return abortedFailure(request);
  }
  const encoding = response.headers.get("content-encoding") ?? undefined;
  const sink = new BodySink(encoding, request.maxBodyBytes, consumer);
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  const wholeMax = consumer === undefined ? request.maxBodyBytes : Math.min(request.maxBodyBytes, WHOLE_READ_MAX_BYTES);
  if (Number.isInteger(length) && length <= wholeMax) return readWhole(request, response, controller, sink);
  const reader = response.body?.getReader();
  if (reader === undefined) return sink.end();

  let outcome: "timeout" | "aborted" | null = null;
  // Hanging up, not only cancelling the stream: the engine would otherwise go on receiving the rest.
  const hangUp = () => {
    controller.abort();
    void reader.cancel().catch(() => {});
  };
  const stop = (why: "timeout" | "aborted") => {
    outcome ??= why;
    hangUp();
  };
  const timer = setTimeout(() => stop("timeout"), request.bodyTimeoutMs);
  const onAbort = () => stop("aborted");
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // Bounded: every turn reads a chunk, and the stream ends, is cut at the cap, or is cancelled by a deadline.
    for (;;) {
      const { done, value } = await reader.read();
      if (outcome !== null || done) break;
      sink.write(value);
      if (sink.full) {
        // Enough: the rest of the body is neither read nor waited for.
        hangUp();
        break;
      }
    }
  } catch (error) {
    if (outcome === null) {
      sink.destroy();
      return networkFailure(error, request);
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (outcome === "timeout") {
    sink.destroy();
    return fetchError("timeout", url.href, `the body did not arrive within ${request.bodyTimeoutMs} ms`);
  }
  if (outcome === "aborted") {
    sink.destroy();
    return abortedFailure(request);
  }
  return finish(request, sink, encoding);
}

/**
 * A body whose announced length is within the cap, read by the engine in one go: chunk by chunk through a
 * JavaScript stream costs more per page (bench/README.md, "What made the crawl linear"). The deadline and the
 * caller's signal abort the exchange.
 */
async function readWhole(request: PinnedRequest, response: Response, controller: AbortController, sink: BodySink): Promise<CollectedBody | FetchError> {
  const { signal, url } = request;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.bodyTimeoutMs);
  const unfollow = follow(signal, controller);
  try {
    sink.write(await response.bytes());
  } catch (error) {
    sink.destroy();
    if (timedOut) return fetchError("timeout", url.href, `the body did not arrive within ${request.bodyTimeoutMs} ms`);
    if (signal?.aborted) return abortedFailure(request);
    return networkFailure(error, request);
  } finally {
    clearTimeout(timer);
    unfollow();
  }
  return finish(request, sink, response.headers.get("content-encoding") ?? undefined);
}

/** The decoded body, or why it does not decode; a consumer's own failure is a programming error and throws. */
async function finish(request: PinnedRequest, sink: BodySink, encoding: string | undefined): Promise<CollectedBody | FetchError> {
  let body: CollectedBody;
  try {
    body = await sink.end();
  } catch (error) {
    if (sink.consumerFailure !== null) throw sink.consumerFailure;
    return fetchError("protocol", request.url.href, `the ${encoding} body does not decode (${errorCode(error) || "corrupt data"})`);
  }
  if (sink.consumerFailure !== null) throw sink.consumerFailure;
  return body;
}

/**
 * One HTTP exchange with an address that has already been checked. The request goes to the IP itself; the
 * hostname travels only as the Host header and, for TLS, as SNI `servername` (which is also the name the
 * certificate is verified against). Nothing here resolves a name, so there is no second lookup for a
 * rebinding DNS server to answer differently.
 *
 * Deadlines. Bun's node:http client runs on its fetch engine and exposes no socket "connect" event, so the
 * connect and header budgets cannot be measured apart: until the response headers arrive, one deadline of
 * connect + header timeout applies. The body has its own deadline from the moment it is read. Bun's
 * `req.destroy()` emits no "error", so every path settles its own promise before destroying the request.
 *
 * Keep-alive. That fetch engine pools connections per pinned address, port and TLS name, so sequential requests
 * to one origin share a connection without an Agent of ours; only a body cut at its cap or a failure destroys
 * one. test/net/safe-fetch-keep-alive.test.ts counts server-side connections to hold this.
 */
import http from "node:http";
import https from "node:https";
import { BodySink, type CollectedBody } from "./body-sink.ts";
import { describeFetchErrorKind, fetchError, type FetchError } from "./fetch-result.ts";
import { classifyNetworkError, errorCode, plainWordsFor } from "./network-error.ts";
import { ipLiteral, type ResolvedAddress } from "./resolve.ts";

/** Everything one exchange needs; `headers` are sent as given, plus Host (and Content-Length with a body). */
export interface PinnedRequest {
  url: URL;
  address: ResolvedAddress;
  method: "GET" | "HEAD" | "POST";
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
  /** Reads and decodes the body within the body deadline and the byte cap. */
  readBody(): Promise<CollectedBody | FetchError>;
  /** Drops the body and the connection (used for redirects, whose bodies nobody reads). */
  discard(): void;
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(name === "set-cookie" ? "\n" : ", ") : value;
  }
  return headers;
}

function endpoint(address: ResolvedAddress, url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return address.family === 6 ? `[${address.address}]:${port}` : `${address.address}:${port}`;
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

/** Sends the request to the pinned address and waits for the response headers. */
export function openPinned(request: PinnedRequest): Promise<PinnedExchange | FetchError> {
  const { url, signal } = request;
  if (signal?.aborted) return Promise.resolve(abortedFailure(request));
  const client = url.protocol === "https:" ? https : http;
  const tlsName = ipLiteral(url.hostname) === null ? url.hostname : undefined;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = { ...request.headers, host: url.host };
  // An explicit length, never chunked encoding: receivers (and their signature checks) see one plain body.
  if (body !== undefined) headers["content-length"] = String(body.length);

  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: PinnedExchange | FetchError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const fail = (result: FetchError) => {
      settle(result);
      req.destroy();
    };

    const req = client.request({
      host: request.address.address,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      servername: tlsName,
      ca: request.ca,
    });

    const headerBudget = request.connectTimeoutMs + request.headerTimeoutMs;
    const timer = setTimeout(() => {
      fail(
        fetchError(
          "timeout",
          url.href,
          `no response headers from ${endpoint(request.address, url)} within ${headerBudget} ms ` +
            `(connect ${request.connectTimeoutMs} ms + header ${request.headerTimeoutMs} ms)`,
        ),
      );
    }, headerBudget);
    const onAbort = () => fail(abortedFailure(request));
    signal?.addEventListener("abort", onAbort, { once: true });

    req.on("error", (error) => fail(networkFailure(error, request)));
    req.on("response", (res) => {
      if (settled) {
        req.destroy();
        return;
      }
      res.pause();
      settle({
        status: res.statusCode ?? 0,
        headers: flattenHeaders(res.headers),
        readBody: () => readBody(request, req, res),
        discard: () => req.destroy(),
      });
    });
    req.end(body);
  });
}

function readBody(
  request: PinnedRequest,
  req: http.ClientRequest,
  res: http.IncomingMessage,
): Promise<CollectedBody | FetchError> {
  const { signal, url } = request;
  const sink = new BodySink(res.headers["content-encoding"], request.maxBodyBytes);

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: CollectedBody | FetchError | Promise<CollectedBody | FetchError>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const fail = (result: FetchError) => {
      sink.destroy();
      finish(result);
      req.destroy();
    };
    const complete = () => {
      // Bun emits "end" on the response when the request is destroyed, so this can run after a failure.
      if (settled) return;
      const decodeFailure = (error: unknown) =>
        fetchError(
          "protocol",
          url.href,
          `the ${res.headers["content-encoding"]} body does not decode (${errorCode(error) || "corrupt data"})`,
        );
      finish(sink.end().catch(decodeFailure));
    };

    const timer = setTimeout(() => {
      fail(fetchError("timeout", url.href, `the body did not arrive within ${request.bodyTimeoutMs} ms`));
    }, request.bodyTimeoutMs);
    const onAbort = () => fail(abortedFailure(request));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });

    res.on("data", (chunk: Buffer) => {
      if (settled) return;
      sink.write(chunk);
      if (sink.full) {
        // Enough: the rest of the body is neither read nor waited for.
        complete();
        req.destroy();
      }
    });
    res.on("end", complete);
    res.on("error", (error) => fail(networkFailure(error, request)));
    req.on("error", (error) => fail(networkFailure(error, request)));
    res.resume();
  });
}

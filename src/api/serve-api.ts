import http from "node:http";
import type { App } from "./app.ts";

/**
 * The API's listener. Bun's HTTP server enforces two limits itself, before any JavaScript runs, and answers them
 * with a bare status line and no body (uWebSockets writes a fixed string, `HttpErrors.h` in Bun's sources; the
 * server's `error` callback never sees them): a request head over `http.maxHeaderSize` gets 431, a Content-Length
 * over `maxRequestBodySize` gets 413. Both are moved out of the app's way so the app answers them with the error
 * envelope: the app refuses heads over 16 KiB (request-head-limit) and bodies over
 * `server.max_request_body_bytes` (the body-limit middleware, which judges a Content-Length without reading).
 */

/**
 * Bun's parser limit for a request head. Past it, Bun still answers a bare 431 and closes; it bounds what a
 * connection may make the parser buffer, so it stays finite.
 */
export const PARSER_HEAD_CEILING_BYTES = 256 * 1024;

/** Starts the API's HTTP server on `hostname:port` with `app`. */
export function serveApi(app: App, options: { hostname: string; port: number }) {
  // Process-wide (Bun reads it for every server it runs); it does not limit `fetch`'s response headers.
  const parser = http as { maxHeaderSize: number };
  if (parser.maxHeaderSize < PARSER_HEAD_CEILING_BYTES) parser.maxHeaderSize = PARSER_HEAD_CEILING_BYTES;
  return Bun.serve({
    hostname: options.hostname,
    port: options.port,
    fetch: app.fetch,
    idleTimeout: 60,
    // Bodies are only ever read through the app's body limit; Bun keeps no unread body in memory.
    maxRequestBodySize: Number.POSITIVE_INFINITY,
  });
}

import http from "node:http";
import type { App } from "./app.ts";
import { body } from "./error-envelope.ts";

/**
 * The API's listener. Bun answers an oversize head (431) or Content-Length (413) itself with a bare status line,
 * so both of its limits are raised out of the way and the app refuses them with the error envelope.
 */

/**
 * Bun's parser limit for a request head. Past it, Bun still answers a bare 431 and closes; it bounds what a
 * connection may make the parser buffer, so it stays finite.
 */
export const PARSER_HEAD_CEILING_BYTES = 256 * 1024;

/**
 * A request that arrives while the node is still starting (the port bound, the bootstrap key or the workers not
 * yet ready) is refused with 503 and Retry-After rather than answered as if the node could serve: a load
 * balancer's /healthz, or the first request with a configured bootstrap key, would otherwise see it too early.
 */
function startingResponse(): Response {
  return Response.json(body("store_unavailable", "this node is starting; try again in a moment"), { status: 503, headers: { "retry-after": "1" } });
}

/** Starts the API's HTTP server on `hostname:port` with `app`; while `starting()` says so, every request is refused. */
export function serveApi(app: App, options: { hostname: string; port: number; starting?: () => boolean }) {
  const { starting } = options;
  // Process-wide (Bun reads it for every server it runs); it does not limit `fetch`'s response headers.
  const parser = http as { maxHeaderSize: number };
  if (parser.maxHeaderSize < PARSER_HEAD_CEILING_BYTES) parser.maxHeaderSize = PARSER_HEAD_CEILING_BYTES;
  return Bun.serve({
    hostname: options.hostname,
    port: options.port,
    fetch: starting === undefined ? app.fetch : (request, server) => (starting() ? startingResponse() : app.fetch(request, server)),
    idleTimeout: 60,
    // Bodies are only ever read through the app's body limit; Bun keeps no unread body in memory.
    maxRequestBodySize: Number.POSITIVE_INFINITY,
  });
}

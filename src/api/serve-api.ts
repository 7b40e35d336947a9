import http from "node:http";
import type { App } from "./app.ts";
import { body } from "./error-envelope.ts";
import { serveOnNodeHttp, type ApiFetch } from "./node-listener.ts";

/**
 * The API's listener. Bun answers an oversize head (431) or Content-Length (413) itself with a bare status line,
 * so both of its limits are raised out of the way and the app refuses them with the error envelope.
 */

/**
 * Bun's parser limit for a request head. Past it, Bun still answers a bare 431 and closes; it bounds what a
 * connection may make the parser buffer, so it stays finite.
 */
export const PARSER_HEAD_CEILING_BYTES = 256 * 1024;

/** A connection with nothing to read or write for this long is closed. */
const IDLE_TIMEOUT_SECONDS = 60;

/**
 * Which HTTP server carries the API. Bun.serve where answers complete without an await (SQLite); node:http where
 * every answer waits on the store first (PostgreSQL), since Bun.serve writes those with a send() per header
 * piece (node-listener.ts; docs/decisions.md, "The API's listener on PostgreSQL").
 */
export type ApiListener = "bun" | "node";

export function apiListenerFor(engine: "sqlite" | "postgres"): ApiListener {
  return engine === "postgres" ? "node" : "bun";
}

/** What either listener gives the composition root. */
export interface ApiServer {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting; resolves when in-flight requests are answered, or at once with `closeActive`. */
  stop(closeActive?: boolean): Promise<void>;
}

/**
 * A request that arrives while the node is still starting (the port bound, the bootstrap key or the workers not
 * yet ready) is refused with 503 and Retry-After rather than answered as if the node could serve: a load
 * balancer's /healthz, or the first request with a configured bootstrap key, would otherwise see it too early.
 */
function startingResponse(): Response {
  return Response.json(body("store_unavailable", "this node is starting; try again in a moment"), { status: 503, headers: { "retry-after": "1" } });
}

interface ServeApiOptions {
  hostname: string;
  port: number;
  listener: ApiListener;
  starting?: () => boolean;
}

/** Starts the API's HTTP server on `hostname:port` with `app`; while `starting()` says so, every request is refused. */
export async function serveApi(app: App, options: ServeApiOptions): Promise<ApiServer> {
  const { starting } = options;
  // Process-wide (Bun reads it for every server it runs); it does not limit `fetch`'s response headers.
  const parser = http as { maxHeaderSize: number };
  if (parser.maxHeaderSize < PARSER_HEAD_CEILING_BYTES) parser.maxHeaderSize = PARSER_HEAD_CEILING_BYTES;
  const fetch: ApiFetch = starting === undefined ? app.fetch : (request, env) => (starting() ? startingResponse() : app.fetch(request, env));
  if (options.listener === "node") {
    return serveOnNodeHttp(fetch, {
      hostname: options.hostname,
      port: options.port,
      idleTimeoutMs: IDLE_TIMEOUT_SECONDS * 1000,
      maxHeaderSize: PARSER_HEAD_CEILING_BYTES,
    });
  }
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    fetch: (request, bunServer) => fetch(request, bunServer),
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    // Bodies are only ever read through the app's body limit; Bun keeps no unread body in memory.
    maxRequestBodySize: Number.POSITIVE_INFINITY,
  });
  return {
    hostname: server.hostname ?? options.hostname,
    port: server.port ?? options.port,
    stop: (closeActive) => server.stop(closeActive),
  };
}

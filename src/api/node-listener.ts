import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { isStreamedBody } from "../http/streamed-body.ts";
import { body as envelope } from "./error-envelope.ts";
import type { ApiServer } from "./serve-api.ts";

/**
 * The API carried over Bun's node:http server instead of Bun.serve, for stores whose answers complete after an
 * await (PostgreSQL: every answer waits for the store's version token). Bun.serve writes such an answer, when it
 * is over ~16 KB, with one send() per header piece; node:http writes the head and a whole body in one
 * (docs/decisions.md, "The API's listener on PostgreSQL"). Every body but a marked stream (http/streamed-body.ts)
 * is buffered whole, so each answer has a Content-Length and goes out at once.
 */

/** Hono's `hono/bun` getConnInfo reads the peer from this (http/client-address.ts), as from a Bun server. */
interface PeerEnv {
  requestIP(request: Request): { address: string; family: string; port: number } | null;
}

export type ApiFetch = (request: Request, env: PeerEnv) => Response | Promise<Response>;

interface NodeListenerOptions {
  hostname: string;
  port: number;
  /** A connection with nothing to read or write for this long is closed (Bun.serve's idleTimeout). */
  idleTimeoutMs: number;
  /** The parser's limit for a request head; past it node:http answers a bare 431. */
  maxHeaderSize: number;
}

/** Starts `fetch` on node:http at `hostname:port`; rejects when the port cannot be bound. */
export async function serveOnNodeHttp(fetch: ApiFetch, options: NodeListenerOptions): Promise<ApiServer> {
  let stopping = false;
  const server = http.createServer({ maxHeaderSize: options.maxHeaderSize }, (incoming, outgoing) => {
    void handle(fetch, incoming, outgoing, () => stopping).finally(() => {
      // A keep-alive connection freed while stopping would otherwise hold the stop until its idle timeout.
      if (stopping) server.closeIdleConnections();
    });
  });
  server.keepAliveTimeout = options.idleTimeoutMs;
  server.headersTimeout = options.idleTimeoutMs;
  server.setTimeout(options.idleTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    hostname: options.hostname,
    port,
    stop(closeActive = false) {
      stopping = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (closeActive) server.closeAllConnections();
        else server.closeIdleConnections();
      });
    },
  };
}

async function handle(fetch: ApiFetch, incoming: IncomingMessage, outgoing: ServerResponse, stopping: () => boolean): Promise<void> {
  let response: Response;
  try {
    const request = requestOf(incoming);
    const socket = incoming.socket;
    const peer = { address: socket.remoteAddress ?? "", family: socket.remoteFamily ?? "", port: socket.remotePort ?? 0 };
    response = await fetch(request, { requestIP: () => (peer.address === "" ? null : peer) });
  } catch {
    // The parser let through what a Request cannot hold (a Host that is no URL authority, say).
    response = Response.json(envelope("invalid_request", "the request could not be read"), { status: 400 });
  }
  try {
    await send(outgoing, incoming.socket, response, incoming.method === "HEAD", stopping());
  } catch {
    outgoing.destroy();
  }
}

/** The Request Bun.serve would have made: the URL from Host and the path, the raw headers, the body as a stream. */
function requestOf(incoming: IncomingMessage): Request {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const target = incoming.url ?? "/";
  // Origin-form (the usual "/path") is appended, never resolved: "//x" must stay a path, not become host x.
  const url = target.startsWith("/") ? `http://${incoming.headers.host ?? "localhost"}${target}` : target;
  const method = incoming.method ?? "GET";
  const hasBody =
    method !== "GET" && method !== "HEAD" && (incoming.headers["transfer-encoding"] !== undefined || Number(incoming.headers["content-length"] ?? 0) > 0);
  return new Request(url, { method, headers, ...(hasBody && { body: bodyOf(incoming), duplex: "half" }) });
}

/** The request body as a stream that reads the socket only as fast as the app does (its body limit reads it). */
function bodyOf(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on("data", (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
      });
      incoming.once("end", () => {
        if (open) controller.close();
        open = false;
      });
      incoming.once("error", (error) => {
        if (open) controller.error(error);
        open = false;
      });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      // The app refused the body (over the limit): what is left is read and dropped, so the answer can be sent.
      open = false;
      incoming.resume();
    },
  });
}

const NO_BODY_STATUSES = new Set([204, 304]);

/** Writes `response`: the head and a buffered body in one end(), or a marked stream chunk by chunk. */
async function send(outgoing: ServerResponse, socket: Socket, response: Response, head: boolean, stopping: boolean): Promise<void> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push("set-cookie", cookie);
  if (stopping) headers.push("connection", "close");
  const body = response.body;
  if (body !== null && isStreamedBody(body)) return sendStream(outgoing, socket, response.status, headers, body);
  const bytes = body === null ? null : new Uint8Array(await response.arrayBuffer());
  if (!head && !NO_BODY_STATUSES.has(response.status) && !response.headers.has("content-length"))
    headers.push("content-length", String(bytes?.byteLength ?? 0));
  outgoing.writeHead(response.status, headers);
  outgoing.end(head || bytes === null ? undefined : bytes);
}

/** A marked stream, with backpressure; a client that goes away cancels it, so nothing more is produced. */
async function sendStream(outgoing: ServerResponse, socket: Socket, status: number, headers: string[], body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  // Bun's node:http tells of a client gone on the socket only: the response emits no "close", and a write to
  // the closed socket still returns true.
  let gone = socket.destroyed;
  const leave = () => {
    gone = true;
    reader.cancel().catch(() => {});
  };
  socket.once("close", leave);
  try {
    outgoing.writeHead(status, headers);
    for (;;) {
      const next = await reader.read();
      if (next.done || gone) break;
      if (!outgoing.write(next.value)) await drained(outgoing, socket);
    }
    if (!gone) outgoing.end();
  } finally {
    socket.off("close", leave);
  }
}

function drained(outgoing: ServerResponse, socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    outgoing.once("drain", done);
    socket.once("close", done);
  });
}

/**
 * A loopback stand-in for a chat or push service (Slack, Discord, Teams, Matrix, ntfy, Gotify): records every
 * request with its parsed JSON body and answers 200 (or the next scripted status). Each chat test parses the
 * body as its destination's format and checks it.
 *
 *   const chat = await startChatReceiver();
 *   ... channel url: chat.url("/services/T/B/secret") ...
 *   const [request] = await chat.waitFor(1);
 */

import { pollUntil } from "./poll.ts";

export interface ChatRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface ChatReceiver {
  origin: string;
  port: number;
  url(path: string): string;
  requests: ChatRequest[];
  /** Answers the next requests with these statuses, in order (then 200 again). */
  script(...statuses: number[]): void;
  waitFor(n: number, timeoutMs?: number): Promise<ChatRequest[]>;
  stop(): Promise<void>;
}

export async function startChatReceiver(options: { port?: number } = {}): Promise<ChatReceiver> {
  const requests: ChatRequest[] = [];
  const queue: number[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request) {
      const body = await request.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const url = new URL(request.url);
      requests.push({ method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers.toJSON(), body, json });
      const status = queue.shift() ?? 200;
      // A failure echoes the path it was called at, as some servers do: a token in it must not reach the delivery log.
      return new Response(status === 200 ? '{"ok":true,"event_id":"$event"}' : JSON.stringify({ error: `status ${status}`, path: url.pathname }), {
        status,
        headers: { "content-type": "application/json" },
      });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    port: server.port!,
    url: (path) => `${origin}${path}`,
    requests,
    script: (...statuses) => {
      queue.push(...statuses);
    },
    waitFor: (n, timeoutMs = 10_000) =>
      pollUntil(() => (requests.length >= n ? requests : undefined), {
        timeoutMs,
        everyMs: 20,
        shortfall: () => `chat receiver: ${requests.length} of ${n} requests`,
      }),
    stop: async () => {
      await server.stop(true);
    },
  };
}

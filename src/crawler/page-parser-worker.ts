/**
 * Entry point of a page parser thread (page-parser.ts): it reads pages for the thread that fetches them, over the
 * message port its creator hands it (`connect`). Each `page` message carries a page's next bytes (and, in the
 * first, how to read it); the last one says the body ended, and the thread answers with what the page held. A
 * page that fails to parse is answered `failed` at its last message.
 */
import { getPriority, setPriority } from "node:os";
import { PageReading, type PageReadRequest, type PageReadResult } from "./page-reading.ts";

/** Messages to the parser thread. */
export type ToParser =
  | { type: "page"; id: number; request: PageReadRequest | null; chunks: Uint8Array[]; end: { cut: boolean } | null }
  | { type: "discard"; id: number }
  | { type: "nice"; nice: number };

/** The one message the thread itself gets: the port pages come through. */
export type ToParserThread = { type: "connect"; port: MessagePort };

/**
 * Messages from it. A page's result travels as JSON text: cheaper to write and to read than a structured clone
 * of its link objects, on both threads (docs/decisions.md, "Pages parsed on a second core").
 */
export type FromParser = { type: "ready" } | { type: "read"; id: number; json: string } | { type: "failed"; id: number; message: string };

declare const self: Worker;

const pages = new Map<number, PageReading>();
/** Pages that failed before their last message, and why: the last one is answered with it. */
const failures = new Map<number, string>();

let port: MessagePort | null = null;

function reply(message: FromParser): void {
  port?.postMessage(message);
}

self.onmessage = (event: MessageEvent<ToParserThread>) => {
  port = event.data.port;
  port.onmessage = received;
  reply({ type: "ready" });
};

function received(event: MessageEvent<ToParser>): void {
  const message = event.data;
  if (message.type === "nice") {
    try {
      if (message.nice > getPriority(0)) setPriority(0, message.nice);
    } catch {
      // not permitted or not supported here: the parser keeps its priority
    }
    return;
  }
  if (message.type === "discard") {
    pages.delete(message.id);
    failures.delete(message.id);
    return;
  }
  const { id, end } = message;
  const failure = failures.get(id);
  if (failure !== undefined) {
    if (end === null) return;
    failures.delete(id);
    reply({ type: "failed", id, message: failure });
    return;
  }
  try {
    const page = message.request === null ? pages.get(id) : new PageReading(message.request);
    if (page === undefined) throw new Error(`no page ${id} is being read`);
    if (end === null) pages.set(id, page);
    else pages.delete(id);
    for (const chunk of message.chunks) page.consumer(chunk);
    if (end !== null) reply({ type: "read", id, json: JSON.stringify(page.finish(end.cut) satisfies PageReadResult) });
  } catch (error) {
    pages.delete(id);
    const why = error instanceof Error ? error.message : String(error);
    if (end === null) failures.set(id, why);
    else reply({ type: "failed", id, message: why });
  }
}

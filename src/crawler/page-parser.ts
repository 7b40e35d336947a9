import { availableParallelism, getPriority } from "node:os";
import { readPageHere, type PageReader, type PageReadRequest, type PageReadResult, type ReadPage } from "./page-reading.ts";
import type { FromParser, ToParser, ToParserThread } from "./page-parser-worker.ts";

/**
 * Pages parsed on a second core. The thread that fetches, judges and writes hands each HTML page's bytes to a
 * parser thread (page-parser-worker.ts) over a message port and gets its links back, so parsing — a third of a
 * crawl's CPU and most of its garbage — runs beside the rest instead of between it (docs/decisions.md, "Pages
 * parsed on a second core"). A crawl worker's parser thread is started and ended with it by the pool
 * (pooled-worker.ts: Bun does not end a worker's own workers with it); a crawl run in the main thread (`check`)
 * starts one at its first page. Until the parser answers, and on a machine with one core, pages are read in
 * the calling thread.
 */

/** A page's bytes are held here until this many have come, then sent on: one message for most pages, and a big page is never held whole. */
const SEND_BYTES = 256 * 1024;

/**
 * The buffer behind `chunk`, which then moves to the parser thread instead of being copied: a body chunk is its
 * reader's (body-sink.ts), and one that shares its buffer (a pooled slice) is copied into its own first.
 */
function ownBuffer(chunk: Uint8Array, index: number, chunks: Uint8Array[]): ArrayBuffer {
  if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer) return chunk.buffer;
  const copy = chunk.slice();
  chunks[index] = copy;
  return copy.buffer;
}

/** Whether a parser thread is worth having: not on a machine with one core. */
export function parserThreadsUsed(): boolean {
  return availableParallelism() >= 2;
}

/**
 * Where the parser's code is. In a compiled binary an entrypoint bundled next to main.ts (scripts/build.ts adds
 * it); from source, the file beside this one.
 */
function parserEntry(): string {
  return import.meta.url.includes("/$bunfs/") ? "./crawler/page-parser-worker.ts" : new URL("./page-parser-worker.ts", import.meta.url).href;
}

/** A parser thread connected to `port` (its other end goes to the thread that will read pages through it). */
export function startParserThread(port: MessagePort): Worker & Pick<Bun.Worker, "ref" | "unref"> {
  const worker = new Worker(parserEntry(), { smol: false }) as Worker & Pick<Bun.Worker, "ref" | "unref">;
  worker.unref();
  worker.postMessage({ type: "connect", port } satisfies ToParserThread, [port]);
  return worker;
}

interface Waiting {
  resolve(result: PageReadResult): void;
  reject(error: Error): void;
}

/** The reading side of a parser thread's port: pages sent, results matched back to them. */
export class ParserClient {
  private ready = false;
  private markStarted!: () => void;
  /** Resolves once the parser thread answers: pages asked for before that are read in the calling thread. */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));
  private dead = false;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private nice = 0;

  constructor(private readonly port: MessagePort & Partial<Pick<Bun.Worker, "ref" | "unref">>) {
    port.onmessage = (event: MessageEvent<FromParser>) => this.received(event.data);
    // The port holds the thread's event loop only while pages are out: an idle parser keeps no process alive,
    // and a loop with nothing else held while waiting polls instead of sleeping (measured: a core's worth).
    port.unref?.();
  }

  /** The parser thread runs at `nice` (never above its own priority), as the crawl it parses for. */
  lowerPriority(nice: number): void {
    if (nice <= this.nice) return;
    this.nice = nice;
    this.send({ type: "nice", nice });
  }

  /** The parser thread is gone: pages waiting for it fail, and later ones are read in the calling thread. */
  died(why: string): void {
    if (this.dead) return;
    this.dead = true;
    const error = new Error(`the page parser thread stopped: ${why}`);
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  /** A reader for one page: in the parser thread once it answers, in this thread until then or after it died. */
  reader(request: PageReadRequest): PageReader {
    if (!this.ready || this.dead) return readPageHere(request);
    const id = this.nextId++;
    let opened = false;
    let finished = false;
    let held: Uint8Array[] = [];
    let heldBytes = 0;
    const send = (end: { cut: boolean } | null) => {
      const transfer = held.map(ownBuffer);
      this.send({ type: "page", id, request: opened ? null : request, chunks: held, end }, transfer);
      opened = true;
      held = [];
      heldBytes = 0;
    };
    return {
      consumer: (chunk) => {
        held.push(chunk);
        heldBytes += chunk.length;
        if (heldBytes >= SEND_BYTES) send(null);
      },
      finish: (cut) => {
        if (finished) return Promise.reject(new Error("a page reader finishes once"));
        finished = true;
        if (this.dead) return Promise.reject(new Error("the page parser thread stopped before the page was read"));
        const result = new Promise<PageReadResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
        if (this.waiting.size === 1) this.port.ref?.();
        send({ cut });
        return result;
      },
      discard: () => {
        if (finished) return;
        finished = true;
        held = [];
        if (opened) this.send({ type: "discard", id });
      },
    };
  }

  private send(message: ToParser, transfer: ArrayBuffer[] = []): void {
    if (!this.dead) this.port.postMessage(message, transfer);
  }

  private received(message: FromParser): void {
    if (message.type === "ready") {
      this.ready = true;
      this.markStarted();
      return;
    }
    const waiting = this.waiting.get(message.id);
    if (waiting === undefined) return;
    this.waiting.delete(message.id);
    if (this.waiting.size === 0) this.port.unref?.();
    if (message.type === "read") waiting.resolve(JSON.parse(message.json) as PageReadResult);
    else waiting.reject(new Error(message.message));
  }
}

/** This thread's parser, once it has one. */
let client: ParserClient | null = null;

/** Reads this thread's pages through the parser thread at the other end of `port` (a crawl worker is handed one). */
export function useParserPort(port: MessagePort): void {
  client = new ParserClient(port);
}

/** The main thread's own parser thread, started on first use; it keeps no process alive. */
function mainThreadClient(): ParserClient {
  const { port1, port2 } = new MessageChannel();
  const parser = new ParserClient(port1);
  const worker = startParserThread(port2);
  worker.onerror = (event) => parser.died(event.message);
  worker.addEventListener("close", () => parser.died("the thread exited"));
  return parser;
}

/** The calling thread's nice value (0 where it cannot be read). */
function ownNice(): number {
  try {
    return getPriority(0);
  } catch {
    return 0;
  }
}

/**
 * This thread's way to read pages: through its parser thread (a crawl worker's, handed over by the pool; the
 * main thread's, started by the first page) when the machine has a second core, else here. The parser takes
 * the calling thread's priority (a service's crawl runs at crawler.nice).
 */
export function pageReaders(): ReadPage {
  if (client === null && !(Bun.isMainThread && parserThreadsUsed())) return readPageHere;
  const nice = ownNice();
  return (request) => {
    client ??= mainThreadClient();
    client.lowerPriority(nice);
    return client.reader(request);
  };
}

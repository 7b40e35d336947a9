import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { createLogger } from "../../src/core/logger.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { forEachStore } from "../helpers/stores.ts";

/**
 * Answers as they leave the API's listener (serve-api.ts), read off a raw socket: a big answer arrives whole with
 * its Content-Length, to an HTTP/1.1 client and to an HTTP/1.0 one (nginx's default towards its upstreams: a
 * streamed body once ended with a stray line for those, docs/decisions.md "Big answers gzipped"); HEAD gets the
 * head only; one connection carries several requests; the peer's address reaches the log. On both stores: a
 * PostgreSQL node's answers complete after a round trip, which Bun writes another way (docs/decisions.md).
 */

interface RawAnswer {
  statusLine: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends `request` on a new connection and reads until the server closes it (bounded: 5 s). */
function untilClosed(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection stayed open 5 s: ${Buffer.concat(chunks).toString("latin1").slice(0, 300)}`));
    }, 5_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.on("error", () => {});
    socket.write(request);
  });
}

/** Splits one HTTP message (head and all that follows it). */
function parse(bytes: Buffer): RawAnswer {
  const end = bytes.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { statusLine: statusLine!, headers, body: bytes.subarray(end + 4) };
}

/** The answers with a Content-Length complete in `bytes`, in order. */
function completeMessages(bytes: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end < 0) return answers;
    const head = parse(bytes.subarray(at, end + 4));
    const length = Number(head.headers["content-length"]);
    if (!Number.isFinite(length) || bytes.length < end + 4 + length) return answers;
    answers.push({ ...head, body: bytes.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

forEachStore("the API's answers on the wire", (store) => {
  let svc: TestService;
  let port: number;
  let openapi = "";
  const lines: { msg?: string; client?: string; path?: string }[] = [];
  beforeAll(async () => {
    const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
    svc = await startTestService({}, { logger, store });
    port = Number(new URL(svc.origin).port);
  });
  afterAll(() => svc.stop());

  test("a big answer arrives whole, with a Content-Length that matches it", async () => {
    const res = await fetch(`${svc.base}/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text).openapi).toMatch(/^3\./);
    openapi = text;
  });

  test("an HTTP/1.0 client gets one well-formed answer and the connection closes after it", async () => {
    const answer = parse(await untilClosed(port, `GET /v1/openapi.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`));
    expect(answer.statusLine).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(answer.headers["transfer-encoding"]).toBeUndefined();
    // Exactly the JSON: nothing (a stray header line, a chunk size) before or after it.
    expect(answer.body.length).toBe(Number(answer.headers["content-length"]));
    expect(JSON.parse(answer.body.toString("utf8")).openapi).toMatch(/^3\./);
  });

  test("HEAD gets the head and no body", async () => {
    const answer = parse(await untilClosed(port, `HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.headers["content-type"]).toContain("application/json");
    expect(answer.body.length).toBe(0);
  });

  test("one keep-alive connection carries several requests, each answered in full", async () => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    try {
      for (let i = 1; i <= 3; i++) {
        socket.write(`GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        const deadline = Date.now() + 5_000;
        while (completeMessages(Buffer.concat(received)).length < i) {
          if (Date.now() > deadline) throw new Error(`answer ${i} incomplete after 5 s`);
          await Bun.sleep(10);
        }
      }
      const answers = completeMessages(Buffer.concat(received));
      expect(answers.map((a) => a.statusLine)).toEqual(Array(3).fill(expect.stringMatching(/^HTTP\/1\.1 200 /)));
      expect(openapi.length).toBeGreaterThan(0);
      for (const answer of answers) expect(answer.body.toString("utf8")).toBe(openapi);
    } finally {
      socket.destroy();
    }
  });

  test("the peer's address is the client's in the request log", async () => {
    await svc.call("GET", "/domains");
    const logged = lines.filter((line) => line.msg === "request").map((line) => line.client);
    expect(logged.length).toBeGreaterThan(0);
    expect(new Set(logged)).toEqual(new Set(["127.0.0.1"]));
  });
});

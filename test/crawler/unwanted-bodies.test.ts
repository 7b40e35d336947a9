import { afterAll, beforeAll, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { runCli } from "../helpers/cli.ts";

/**
 * A body the crawler does not want costs nothing: a link to an endless stream, to a huge file, a redirect or
 * a refused HEAD whose body never ends, and a page longer than max_body_bytes are all dropped by closing the
 * connection, not by reading (or letting the HTTP engine buffer) what the server keeps sending. Measured on
 * the server's side: how many bytes it managed to write before the crawler hung up. The server writes with
 * backpressure, so what it wrote is what the client took in; each stream stops by itself after 20 s or 4 GiB.
 */

const CHUNK = Buffer.alloc(64 * 1024, "a");
const STREAM_LIMIT_BYTES = 4 * 1024 ** 3;
const STREAM_LIMIT_MS = 20_000;
/**
 * Bun's fetch reads a body ahead with no backpressure until the crawler hangs up, and on loopback that is
 * ~1 GB/s while the crawl's thread is busy parsing a 10 MB page (tens of ms): the bound leaves room for that,
 * and is far below what an unbounded reader takes in (GBs within seconds).
 */
const MAX_TAKEN = 160 * 1024 * 1024;

const sent = new Map<string, number>();
let server: http.Server;
let origin: string;

function endless(res: http.ServerResponse, path: string, headers: Record<string, string>, status = 200): void {
  res.writeHead(status, headers);
  const started = Date.now();
  let written = 0;
  let closed = false;
  res.on("close", () => (closed = true));
  const pump = (): void => {
    while (!closed && written < STREAM_LIMIT_BYTES && Date.now() - started < STREAM_LIMIT_MS) {
      written += CHUNK.length;
      sent.set(path, written);
      if (!res.write(CHUNK)) {
        res.once("drain", pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const html = { "content-type": "text/html" };
    switch (path) {
      case "/":
        res.writeHead(200, html);
        res.end(
          `<a href="/radio">radio</a> <a href="/disc.iso">iso</a> <a href="/moved">moved</a> <a href="/endless.html">long page</a>
           <img src="/picture.png" alt="p"> <a href="/ok">ok</a>`,
        );
        return;
      case "/ok":
        res.writeHead(200, html);
        res.end("fine");
        return;
      case "/radio":
        return endless(res, path, { "content-type": "audio/mpeg" });
      case "/disc.iso":
        return endless(res, path, { "content-type": "application/octet-stream", "content-length": String(STREAM_LIMIT_BYTES) });
      case "/moved":
        return endless(res, path, { ...html, location: "/ok" }, 302);
      case "/endless.html":
        return endless(res, path, html);
      case "/picture.png":
        if (req.method === "HEAD") {
          res.writeHead(405);
          res.end();
          return;
        }
        return endless(res, path, { "content-type": "image/png" });
      default:
        res.writeHead(404, html);
        res.end("no");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("links to endless and huge bodies are checked without taking the bodies in", async () => {
  const run = await runCli(["check", `${origin}/`, "--allow-private", "--images", "--format", "json"], { timeoutMs: 30_000 });
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  const status = Object.fromEntries(report.links.map((link: any) => [new URL(link.url).pathname, link.status_code]));
  expect(status).toEqual({ "/radio": 200, "/disc.iso": 200, "/moved": 200, "/endless.html": 200, "/picture.png": 200, "/ok": 200 });
  expect(report.summary.pages_cut).toBe(1); // /endless.html, parsed up to max_body_bytes

  const taken = ["/radio", "/disc.iso", "/moved", "/picture.png"].map((path) => [path, sent.get(path) ?? 0] as const);
  expect(taken.filter(([, bytes]) => bytes === 0)).toEqual([]); // each was asked for
  expect(taken.filter(([, bytes]) => bytes >= MAX_TAKEN)).toEqual([]);
  // A page is read up to max_body_bytes (10 MiB by default) and no further.
  expect(sent.get("/endless.html")).toBeLessThan(10 * 1024 * 1024 + MAX_TAKEN);
});

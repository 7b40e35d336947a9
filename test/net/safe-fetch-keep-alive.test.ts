import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { safeFetch } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";

/**
 * Connection reuse per origin (issue 3, "keep-alive connection reuse per origin"): Bun's fetch, which the
 * crawler's pinned requests use, pools connections keyed by the pinned address, port and TLS name. These tests count the TCP
 * connections a real server accepts, so a change that loses reuse (say, destroying every request) fails here.
 */

let connections = 0;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/hop") {
      res.writeHead(302, { location: "/" });
      res.end("moved");
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html><body>hello</body></html>");
  });
  server.keepAliveTimeout = 10_000;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function connectionsFor(work: () => Promise<unknown>): Promise<number> {
  const before = connections;
  await work();
  return connections - before;
}

describe("keep-alive", () => {
  test("sequential GETs to one origin share a connection", async () => {
    const opened = await connectionsFor(async () => {
      for (let i = 0; i < 8; i++) {
        const result = await safeFetch(`${origin}/`, testFetchOptions());
        expect(result.kind).toBe("response");
      }
    });
    expect(opened).toBeLessThanOrEqual(2);
  });

  test("HEAD requests and followed redirects reuse it too", async () => {
    const options = testFetchOptions({ maxRedirects: 3 });
    const opened = await connectionsFor(async () => {
      for (let i = 0; i < 4; i++) {
        expect((await safeFetch(`${origin}/`, { ...options, method: "HEAD" })).kind).toBe("response");
        const followed = await safeFetch(`${origin}/hop`, options);
        expect(followed.kind === "response" && followed.status).toBe(200);
      }
    });
    expect(opened).toBeLessThanOrEqual(2);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import type { Resolve } from "../../src/net/resolve.ts";
import { safeFetch } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";

// No HTTP answer is a value with a kind, never an exception: the crawler records it like any other outcome.

/** A raw TCP server that answers every request with `reply` and then closes (or resets) the connection. */
async function rawServer(reply: string, reset = false): Promise<net.Server & { port: number }> {
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => {
      socket.write(reply);
      // A short pause lets the bytes leave before the close.
      setTimeout(() => (reset ? socket.resetAndDestroy() : socket.end()), 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(server, { port: (server.address() as net.AddressInfo).port });
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let garbage: net.Server & { port: number };
let shortBodyClosed: net.Server & { port: number };
let shortBodyReset: net.Server & { port: number };
beforeAll(async () => {
  garbage = await rawServer("THIS IS NOT HTTP\r\n\r\n");
  const short = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly a few bytes";
  shortBodyClosed = await rawServer(short);
  shortBodyReset = await rawServer(short, true);
});
afterAll(() => {
  garbage.close();
  shortBodyClosed.close();
  shortBodyReset.close();
});

describe("safeFetch failures are typed results", () => {
  test("a closed port is refused", async () => {
    const port = await closedPort();

    const result = await safeFetch(`http://127.0.0.1:${port}/`, testFetchOptions());

    expect(result).toMatchObject({ kind: "error", error: "refused", url: `http://127.0.0.1:${port}/` });
    if (result.kind === "error") expect(result.message).toContain("connection refused");
  });

  test("a response that is not HTTP is a protocol error", async () => {
    const result = await safeFetch(`http://127.0.0.1:${garbage.port}/`, testFetchOptions());

    expect(result).toMatchObject({ kind: "error", error: "protocol" });
  });

  test("a connection closed or reset in the middle of the body is not reported as a whole body", async () => {
    for (const server of [shortBodyClosed, shortBodyReset]) {
      const result = await safeFetch(`http://127.0.0.1:${server.port}/`, testFetchOptions());
      expect(result).toMatchObject({ kind: "error", error: "refused" });
      if (result.kind === "error") expect(result.message).toContain("before the response was complete");
    }
  });

  test("a name that does not resolve is a dns error naming the code", async () => {
    const resolve: Resolve = async () => {
      throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
    };

    const result = await safeFetch("http://nowhere.linkpatrol.test/", testFetchOptions({ resolve }));

    expect(result).toMatchObject({ kind: "error", error: "dns" });
    if (result.kind === "error") expect(result.message).toContain("ENOTFOUND");
  });

  test("a resolver that never answers is a dns error after the connect timeout", async () => {
    const resolve: Resolve = () => new Promise(() => {});
    const started = performance.now();

    const result = await safeFetch("http://slow-dns.linkpatrol.test/", testFetchOptions({ resolve, connectTimeoutMs: 200 }));

    expect(result).toMatchObject({ kind: "error", error: "dns" });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  test("schemes other than http and https are unsafe_url", async () => {
    for (const url of ["ftp://example.com/file", "file:///etc/passwd", "javascript:alert(1)", "gopher://127.0.0.1:70/"]) {
      const result = await safeFetch(url, testFetchOptions());
      expect(result).toMatchObject({ kind: "error", error: "unsafe_url", url });
    }
  });

  test("text that is not a URL is invalid_url", async () => {
    const result = await safeFetch("not a url", testFetchOptions());

    expect(result).toMatchObject({ kind: "error", error: "invalid_url" });
  });
});

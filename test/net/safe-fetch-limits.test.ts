import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// Deadlines and byte caps: a hung server costs a bounded time, a huge or inflating body a bounded memory.

const TEXT = "linkpatrol ".repeat(2_000); // 22 000 bytes that compress well
const BOMB_BYTES = 20 * 1024 * 1024;

/** Short deadlines, so the timeout tests stay fast. */
function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return testFetchOptions({ connectTimeoutMs: 100, headerTimeoutMs: 300, bodyTimeoutMs: 300, ...overrides });
}

function text(result: Awaited<ReturnType<typeof safeFetch>>): string {
  if (result.kind !== "response") throw new Error(`expected a response, got ${result.error}: ${result.message}`);
  return new TextDecoder().decode(result.body);
}

// Hung handlers wait on this; afterAll releases them so nothing outlives the file.
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

let site: LoopbackSite;
// Announces a Content-Length, sends part of it and stalls: a body small enough to be read in one go.
let announced: http.Server;
let announcedOrigin: string;
beforeAll(async () => {
  announced = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html", "content-length": "1000" });
    res.write("first bytes of a thousand ");
    void released.then(() => res.destroy());
  });
  await new Promise<void>((resolve) => announced.listen(0, "127.0.0.1", resolve));
  announcedOrigin = `http://127.0.0.1:${(announced.address() as AddressInfo).port}`;
  site = await startLoopbackSite({
    "/hang": async () => {
      await released;
      return new Response("too late");
    },
    "/stall-body": () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode("first bytes "));
            await released;
            controller.close();
          },
        }),
      ),
    "/big": { body: "x".repeat(100_000) },
    "/exact": { body: "y".repeat(1_024) },
    "/gzip": { body: zlib.gzipSync(TEXT), headers: { "content-encoding": "gzip" } },
    "/deflate": { body: zlib.deflateSync(TEXT), headers: { "content-encoding": "deflate" } },
    "/deflate-raw": { body: zlib.deflateRawSync(TEXT), headers: { "content-encoding": "deflate" } },
    "/br": { body: zlib.brotliCompressSync(TEXT), headers: { "content-encoding": "br" } },
    "/bomb": { body: zlib.gzipSync(Buffer.alloc(BOMB_BYTES)), headers: { "content-encoding": "gzip" } },
    "/corrupt": {
      body: new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      headers: { "content-encoding": "gzip" },
    },
    "/unknown-encoding": { body: "plain bytes", headers: { "content-encoding": "zstd" } },
  });
});
afterAll(async () => {
  release();
  await site.stop();
  announced.closeAllConnections();
  await new Promise<void>((resolve) => announced.close(() => resolve()));
});

describe("safeFetch deadlines", () => {
  test("a server that never answers times out within connect + header timeout", async () => {
    const started = performance.now();

    const result = await safeFetch(site.url("/hang"), options());

    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ kind: "error", error: "timeout", url: site.url("/hang") });
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(2_000);
  });

  test("a body that stalls times out within the body timeout", async () => {
    const started = performance.now();

    const result = await safeFetch(site.url("/stall-body"), options());

    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ kind: "error", error: "timeout" });
    if (result.kind === "error") expect(result.message).toContain("body");
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
  });

  test("a body announced with its length that stalls times out within the body timeout too", async () => {
    const started = performance.now();

    const result = await safeFetch(`${announcedOrigin}/`, options());

    expect(result).toMatchObject({ kind: "error", error: "timeout" });
    if (result.kind === "error") expect(result.message).toContain("body");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  test("the caller's signal aborts the reading of an announced body", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    const result = await safeFetch(`${announcedOrigin}/`, options({ bodyTimeoutMs: 5_000, signal: controller.signal }));

    expect(result).toMatchObject({ kind: "error", error: "aborted" });
  });

  test("the caller's signal aborts a request in flight", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    const result = await safeFetch(site.url("/hang"), options({ headerTimeoutMs: 5_000, signal: controller.signal }));

    expect(result).toMatchObject({ kind: "error", error: "aborted" });
  });

  test("an AbortSignal.timeout() still fires after a name was resolved (Bun disarms it when its listeners go)", async () => {
    const resolve = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const started = performance.now();

    const result = await safeFetch(
      `http://hang.linkpatrol.test:${site.port}/hang`,
      options({ resolve, headerTimeoutMs: 5_000, signal: AbortSignal.timeout(150) }),
    );

    expect(result).toMatchObject({ kind: "error", error: "aborted" });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("the caller's AbortSignal.timeout() is still armed after safeFetch is done with it", async () => {
    const signal = AbortSignal.timeout(200);

    const result = await safeFetch(site.url("/exact"), options({ signal }));
    await Bun.sleep(400);

    expect(result).toMatchObject({ kind: "response", status: 200 });
    expect(signal.aborted).toBe(true);
  });

  test("an already aborted signal sends nothing", async () => {
    const before = site.requests.length;

    const result = await safeFetch(site.url("/big"), options({ signal: AbortSignal.abort() }));

    expect(result).toMatchObject({ kind: "error", error: "aborted" });
    expect(site.requests.length).toBe(before);
  });
});

describe("safeFetch body limits", () => {
  test("a body over maxBodyBytes is cut there and marked truncated", async () => {
    const result = await safeFetch(site.url("/big"), options({ maxBodyBytes: 1_024 }));

    expect(text(result)).toBe("x".repeat(1_024));
    expect(result).toMatchObject({ truncated: true });
  });

  test("a body of exactly maxBodyBytes is whole", async () => {
    const result = await safeFetch(site.url("/exact"), options({ maxBodyBytes: 1_024 }));

    expect(text(result)).toBe("y".repeat(1_024));
    expect(result).toMatchObject({ truncated: false });
  });

  test("a decompression bomb stops at maxBodyBytes of decoded output, quickly", async () => {
    const started = performance.now();

    const result = await safeFetch(site.url("/bomb"), options({ maxBodyBytes: 64 * 1024 }));

    expect(result).toMatchObject({ kind: "response", status: 200, truncated: true });
    if (result.kind === "response") expect(result.body.length).toBe(64 * 1024);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("the cap applies to the decoded size, not the compressed size", async () => {
    const compressed = zlib.gzipSync(TEXT).length;
    const result = await safeFetch(site.url("/gzip"), options({ maxBodyBytes: 10_000 }));

    expect(compressed).toBeLessThan(10_000);
    expect(text(result)).toBe(TEXT.slice(0, 10_000));
    expect(result).toMatchObject({ truncated: true });
  });
});

describe("safeFetch content decoding", () => {
  for (const path of ["/gzip", "/deflate", "/deflate-raw", "/br"]) {
    test(`${path.slice(1)} bodies are decoded`, async () => {
      const result = await safeFetch(site.url(path), options());

      expect(text(result)).toBe(TEXT);
      expect(result).toMatchObject({ truncated: false });
    });
  }

  test("a corrupt gzip body is a protocol error", async () => {
    const result = await safeFetch(site.url("/corrupt"), options());

    expect(result).toMatchObject({ kind: "error", error: "protocol" });
  });

  test("an encoding we never asked for is passed through with its header", async () => {
    const result = await safeFetch(site.url("/unknown-encoding"), options());

    expect(text(result)).toBe("plain bytes");
    if (result.kind === "response") expect(result.headers["content-encoding"]).toBe("zstd");
  });

  test("HEAD reads no body", async () => {
    const result = await safeFetch(site.url("/big"), options({ method: "HEAD" }));

    expect(result).toMatchObject({ kind: "response", status: 200, truncated: false });
    if (result.kind === "response") expect(result.body.length).toBe(0);
  });
});

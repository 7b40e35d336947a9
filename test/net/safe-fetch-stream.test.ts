import { afterAll, beforeAll, expect, test } from "bun:test";
import zlib from "node:zlib";
import type { BodyReader } from "../../src/net/body-sink.ts";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// bodyReader: the decoded body handed to the reader's consumer as it arrives, under the same caps, instead of collected.

const TEXT = "linkpatrol ".repeat(30_000); // 330 000 bytes: past the size read in one go
const BOMB_BYTES = 20 * 1024 * 1024;

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite({
    "/gzip": { body: zlib.gzipSync(TEXT), headers: { "content-encoding": "gzip" } },
    "/plain": { body: TEXT },
    "/small": { body: "small page" },
    "/bomb": { body: zlib.gzipSync(Buffer.alloc(BOMB_BYTES)), headers: { "content-encoding": "gzip" } },
    "/moved": { status: 301, headers: { location: "/small" } },
    "/missing": { status: 404, body: "not here" },
  });
});
afterAll(() => site?.stop());

/** Fetches `path` with a reader collecting what it is handed; `asked` lists the calls to bodyReader. */
async function streamed(path: string, overrides: Partial<SafeFetchOptions> = {}) {
  const chunks: Uint8Array[] = [];
  const asked: [number, string][] = [];
  const result = await safeFetch(site.url(path), {
    ...testFetchOptions({ maxRedirects: 5, ...overrides }),
    bodyReader: (status, _headers, finalUrl) => {
      asked.push([status, finalUrl]);
      return { consumer: (chunk: Uint8Array) => chunks.push(chunk) };
    },
  });
  if (result.kind !== "response") throw new Error(`expected a response, got ${result.error}: ${result.message}`);
  return { result, asked, text: Buffer.concat(chunks).toString("latin1"), chunks: chunks.length };
}

test.each(["/gzip", "/plain", "/small"])("%s: the consumer gets the decoded body; the result's body is empty", async (path) => {
  const { result, text } = await streamed(path, { maxBodyBytes: 1024 * 1024 });
  expect(text).toBe(path === "/small" ? "small page" : TEXT);
  expect(result.body.length).toBe(0);
  expect(result.truncated).toBe(false);
});

test("the cap applies to what the consumer gets: a gzip bomb stops at max_body_bytes, marked truncated", async () => {
  const { result, text } = await streamed("/bomb", { maxBodyBytes: 64 * 1024 });
  expect(text.length).toBe(64 * 1024);
  expect(result.truncated).toBe(true);
});

test("asked once, for the final answer after redirects, and only when the body is wanted", async () => {
  const followed = await streamed("/moved");
  expect(followed.asked).toEqual([[200, site.url("/small")]]);
  expect(followed.text).toBe("small page");
  const unwanted = await streamed("/missing", { wantBody: (status) => status === 200 });
  expect(unwanted.asked).toEqual([]);
  expect(unwanted.result.status).toBe(404);
});

test("a reader without a consumer: the body is collected as without bodyReader, and the reader comes back on the result", async () => {
  const reader: BodyReader = {};
  const result = await safeFetch(site.url("/gzip"), { ...testFetchOptions({ maxBodyBytes: 1024 * 1024 }), bodyReader: () => reader });
  expect(result.kind === "response" && new TextDecoder().decode(result.body)).toBe(TEXT);
  expect(result.kind === "response" && result.reader).toBe(reader);
});

test("a reader of null: the body is not wanted; the answer comes back with an empty body and no reader", async () => {
  const result = await safeFetch(site.url("/gzip"), { ...testFetchOptions({ maxBodyBytes: 1024 * 1024 }), bodyReader: () => null });
  if (result.kind !== "response") throw new Error(result.message);
  expect(result.status).toBe(200);
  expect(result.body.length).toBe(0);
  expect(result.reader).toBeNull();
});

test("a consumer that throws is a programming error: safeFetch rejects rather than reporting the site", async () => {
  const failing = safeFetch(site.url("/gzip"), {
    ...testFetchOptions({ maxBodyBytes: 1024 * 1024 }),
    bodyReader: () => ({
      consumer: () => {
        throw new Error("consumer bug");
      },
    }),
  });
  await expect(failing).rejects.toThrow("consumer bug");
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { configSchema } from "../../src/config/schema.ts";
import { crawlerFetchOptions } from "../../src/net/crawler-fetch-options.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import type { VerificationFetchSettings } from "../../src/verification/http-fetch.ts";
import { checkHttpFile } from "../../src/verification/http-file.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// The well-known file method against real loopback servers, through safeFetch and the crawler's policy.

const TOKEN = "tok_7b2e90";
const FILE = "/.well-known/linkpatrol-verify.txt";

const resolve: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];

function settings(allowedCidrs: string[] = ["127.0.0.1/32"]): VerificationFetchSettings {
  const config = configSchema.parse({
    crawler: { allowed_cidrs: allowedCidrs, connect_timeout: "1s", header_timeout: "2s", body_timeout: "2s" },
  });
  return { fetch: crawlerFetchOptions(config.crawler, resolve), timeoutMs: 3_000 };
}

function targetOn(site: LoopbackSite, token = TOKEN) {
  return { name: site.host, rootUrl: site.url("/"), token };
}

let good: LoopbackSite;
let wrong: LoopbackSite;
let missing: LoopbackSite;
let redirecting: LoopbackSite;
beforeAll(async () => {
  good = await startLoopbackSite({ [FILE]: { body: `  ${TOKEN}\n`, headers: { "content-type": "text/plain" } } });
  wrong = await startLoopbackSite({ [FILE]: { body: "some-other-token\n" } });
  missing = await startLoopbackSite({});
  redirecting = await startLoopbackSite({
    [FILE]: () => new Response(null, { status: 301, headers: { location: "/files/verify.txt" } }),
    "/files/verify.txt": { body: TOKEN },
  });
});
afterAll(async () => {
  for (const site of [good, wrong, missing, redirecting]) await site.stop();
});

describe("HTTP file verification", () => {
  test("passes when the file answers 2xx and contains the token", async () => {
    const result = await checkHttpFile(targetOn(good), settings());

    expect(result).toMatchObject({ method: "http_file", passed: true });
    expect(good.requests).toEqual([`GET ${FILE}`]);
  });

  test("looks at the origin of the root URL, whatever its path", async () => {
    const result = await checkHttpFile({ ...targetOn(good), rootUrl: good.url("/blog/index.html") }, settings());

    expect(result.passed).toBe(true);
  });

  test("follows redirects to the file", async () => {
    const result = await checkHttpFile(targetOn(redirecting), settings());

    expect(result.passed).toBe(true);
    expect(redirecting.requests).toEqual([`GET ${FILE}`, "GET /files/verify.txt"]);
  });

  test("fails when the file holds another token", async () => {
    const result = await checkHttpFile(targetOn(wrong), settings());

    expect(result).toEqual({
      method: "http_file",
      passed: false,
      reason: `the file does not contain the token (${wrong.url(FILE)})`,
    });
  });

  test("fails with the status when the file is missing", async () => {
    const result = await checkHttpFile(targetOn(missing), settings());

    expect(result).toEqual({ method: "http_file", passed: false, reason: `GET ${missing.url(FILE)} answered 404` });
  });

  test("fails with 'connection refused' when nothing listens", async () => {
    const server = net.createServer();
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((done) => server.close(() => done()));

    const closed = { name: `127.0.0.1:${port}`, rootUrl: `http://127.0.0.1:${port}/`, token: TOKEN };
    const result = await checkHttpFile(closed, settings());

    expect(result.passed).toBe(false);
    expect(result.reason).toContain("connection refused");
  });

  test("refuses a private address the crawler policy does not allow, without sending a request", async () => {
    const before = good.requests.length;

    const result = await checkHttpFile(targetOn(good), settings([]));

    expect(result.passed).toBe(false);
    expect(result.reason).toContain("127.0.0.1");
    expect(result.reason).toContain("private");
    expect(good.requests.length).toBe(before);
  });
});

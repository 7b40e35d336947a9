import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VERSION } from "../../src/core/version.ts";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// What every request says about itself: who we are, which encodings we decode, and which host we mean.

/** Every name reaches the loopback site; the User-Agent is a template with the version in it. */
function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return testFetchOptions({
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    userAgent: "linkpatrol/{version} (+https://example.test/bot)",
    ...overrides,
  });
}

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: "ok", headers: { "x-Mixed-Case": "kept", "set-cookie": "a=1" } },
  });
});
afterAll(() => site.stop());

describe("safeFetch request headers", () => {
  test("User-Agent carries the version, Accept-Encoding lists what we decode, Host names the URL's host", async () => {
    await safeFetch(`http://www.linkpatrol.test:${site.port}/`, options());

    const sent = site.requestHeaders.at(-1)!;
    expect(sent["user-agent"]).toBe(`linkpatrol/${VERSION} (+https://example.test/bot)`);
    expect(sent["accept-encoding"]).toBe("gzip, deflate, br");
    expect(sent.host).toBe(`www.linkpatrol.test:${site.port}`);
  });

  test("caller headers are sent, but cannot change Host or Accept-Encoding", async () => {
    await safeFetch(
      `http://www.linkpatrol.test:${site.port}/`,
      options({ headers: { Accept: "text/html", Host: "spoofed.example", "Accept-Encoding": "zstd" } }),
    );

    const sent = site.requestHeaders.at(-1)!;
    expect(sent.accept).toBe("text/html");
    expect(sent.host).toBe(`www.linkpatrol.test:${site.port}`);
    expect(sent["accept-encoding"]).toBe("gzip, deflate, br");
  });

  test("response header names come back in lower case", async () => {
    const result = await safeFetch(`http://www.linkpatrol.test:${site.port}/`, options());

    expect(result.kind).toBe("response");
    if (result.kind !== "response") return;
    expect(result.headers["x-mixed-case"]).toBe("kept");
    expect(result.headers["set-cookie"]).toBe("a=1");
    expect(Object.keys(result.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });
});

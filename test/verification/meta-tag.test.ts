import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { configSchema } from "../../src/config/schema.ts";
import { crawlerFetchOptions } from "../../src/net/crawler-fetch-options.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import type { VerificationFetchSettings } from "../../src/verification/http-fetch.ts";
import { checkMetaTag, verificationMetaContents } from "../../src/verification/meta-tag.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// The meta tag method: a tag in the root page's head, found by a streaming parse that stops at the body.

const TOKEN = "tok_c41d07";

const resolve: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
const config = configSchema.parse({
  crawler: { allowed_cidrs: ["127.0.0.1/32"], connect_timeout: "1s", header_timeout: "2s", body_timeout: "2s" },
});
const settings: VerificationFetchSettings = { fetch: crawlerFetchOptions(config.crawler, resolve), timeoutMs: 3_000 };

function page(head: string, body = "<p>hello</p>"): string {
  return `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;
}

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite({
    "/good/": { body: page(`<meta name="linkpatrol-verify" content="${TOKEN}">`) },
    "/loose/": { body: page(`<META Name=" LinkPatrol-Verify " CONTENT="  ${TOKEN} "/>`) },
    "/none/": { body: page(`<meta name="description" content="${TOKEN}">`) },
    "/mismatch/": { body: page(`<meta name="linkpatrol-verify" content="someone-else">`) },
    "/in-body/": { body: page("", `<meta name="linkpatrol-verify" content="${TOKEN}">`) },
    "/error/": { status: 500, body: page(`<meta name="linkpatrol-verify" content="${TOKEN}">`) },
    "/moved/": () => new Response(null, { status: 302, headers: { location: "/good/" } }),
  });
});
afterAll(() => site.stop());

function target(path: string) {
  return { name: site.host, rootUrl: site.url(path), token: TOKEN };
}

describe("meta tag verification", () => {
  test("passes when the head carries the tag with the token", async () => {
    const result = await checkMetaTag(target("/good/"), settings);

    expect(result).toMatchObject({ method: "meta_tag", passed: true });
  });

  test("matches the name case-insensitively and trims the content", async () => {
    const result = await checkMetaTag(target("/loose/"), settings);

    expect(result.passed).toBe(true);
  });

  test("follows a redirect from the root URL", async () => {
    const result = await checkMetaTag(target("/moved/"), settings);

    expect(result.passed).toBe(true);
  });

  test("fails when there is no such tag", async () => {
    const result = await checkMetaTag(target("/none/"), settings);

    expect(result).toEqual({
      method: "meta_tag",
      passed: false,
      reason: `no <meta name="linkpatrol-verify"> tag on ${site.url("/none/")}`,
    });
  });

  test("fails when the tag carries another value", async () => {
    const result = await checkMetaTag(target("/mismatch/"), settings);

    expect(result.passed).toBe(false);
    expect(result.reason).toStartWith("meta tag content does not match");
  });

  test("a tag in the body does not count", async () => {
    const result = await checkMetaTag(target("/in-body/"), settings);

    expect(result.passed).toBe(false);
  });

  test("a page that answers 500 does not count, even with the tag", async () => {
    const result = await checkMetaTag(target("/error/"), settings);

    expect(result).toEqual({ method: "meta_tag", passed: false, reason: `GET ${site.url("/error/")} answered 500` });
  });
});

describe("verificationMetaContents", () => {
  test("collects every matching tag in the head, in order", () => {
    const html = page(`<meta name="linkpatrol-verify" content="a"><meta name="linkpatrol-verify" content=" b ">`);

    expect(verificationMetaContents(html)).toEqual(["a", "b"]);
  });

  test("a head without an explicit </head> ends at <body>", () => {
    const html = `<html><meta name="linkpatrol-verify" content="early"><body><meta name="linkpatrol-verify" content="late">`;

    expect(verificationMetaContents(html)).toEqual(["early"]);
  });

  test("a tag without content counts as an empty value", () => {
    expect(verificationMetaContents(`<head><meta name="linkpatrol-verify"></head>`)).toEqual([""]);
  });

  test("stops reading a huge body once the head is over", () => {
    const tag = (content: string) => `<meta name="linkpatrol-verify" content="${content}">`;
    const html = page(tag("x"), tag("y").repeat(50_000));

    expect(verificationMetaContents(html)).toEqual(["x"]);
  });
});

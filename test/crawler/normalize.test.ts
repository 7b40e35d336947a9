import { describe, expect, test } from "bun:test";
import { isInternal, MAX_URL_LENGTH, normalizeUrl } from "../../src/crawler/normalize.ts";

const BASE = "https://Example.COM:443/docs/guide.html?v=1#intro";

describe("normalizeUrl: what a URL becomes", () => {
  test.each([
    ["relative path", "next.html", "https://example.com/docs/next.html"],
    ["parent path", "../about", "https://example.com/about"],
    ["root-relative", "/a/B/c", "https://example.com/a/B/c"],
    ["absolute", "http://other.example/x?y=1", "http://other.example/x?y=1"],
    ["protocol-relative takes the base's scheme", "//other.example/x", "https://other.example/x"],
    ["query only", "?page=2", "https://example.com/docs/guide.html?page=2"],
    ["empty href is the base document", "", "https://example.com/docs/guide.html?v=1"],
    ["whitespace-only href is the base document", " \n\t ", "https://example.com/docs/guide.html?v=1"],
    ["scheme and host lowercased, path and query case kept", "HTTP://WWW.Other.Example/Path/To?Q=A&b=C", "http://www.other.example/Path/To?Q=A&b=C"],
    ["default http port dropped", "http://other.example:80/", "http://other.example/"],
    ["default https port dropped", "https://other.example:443/", "https://other.example/"],
    ["non-default port kept", "http://other.example:8080/", "http://other.example:8080/"],
    ["https on port 80 is not a default", "https://other.example:80/", "https://other.example:80/"],
    ["leading and trailing whitespace stripped", "  \n/a  ", "https://example.com/a"],
    ["tabs and newlines inside stripped", "/a\t/b\n/c", "https://example.com/a/b/c"],
    ["spaces inside percent-encoded", "/a b", "https://example.com/a%20b"],
    ["non-ASCII path percent-encoded", "/café", "https://example.com/caf%C3%A9"],
    ["IDN host to punycode", "http://bücher.example/", "http://xn--bcher-kva.example/"],
    ["backslashes are slashes in http URLs", "\\\\other.example\\x", "https://other.example/x"],
  ])("%s: %p", (_name, raw, expected) => {
    expect(normalizeUrl(raw, BASE)).toEqual({ kind: "url", url: expected });
  });

  test("accepts a URL object as base", () => {
    expect(normalizeUrl("x", new URL("http://a.example/d/"))).toEqual({ kind: "url", url: "http://a.example/d/x" });
  });
});

describe("normalizeUrl: what is skipped", () => {
  test.each([
    ["mailto:someone@example.com", "unsupported_scheme"],
    ["tel:+15551234567", "unsupported_scheme"],
    ["javascript:void(0)", "unsupported_scheme"],
    ["  JavaScript:void(0)", "unsupported_scheme"],
    ["java\tscript:alert(1)", "unsupported_scheme"],
    ["\njava\nscript:alert(1)", "unsupported_scheme"],
    ["JAVASCRIPT:x", "unsupported_scheme"],
    ["data:image/png;base64,AAAA", "unsupported_scheme"],
    ["DATA:text/html,hi", "unsupported_scheme"],
    ["ftp://files.example/x", "unsupported_scheme"],
    ["file:///etc/passwd", "unsupported_scheme"],
    ["http://exa mple.com/", "invalid"],
    ["http://[::1/", "invalid"],
    ["http://example.com:99999/", "invalid"],
    ["https://", "invalid"],
  ] as const)("%p → %s", (raw, reason) => {
    expect(normalizeUrl(raw, BASE)).toEqual({ kind: "skip", reason });
  });

  test("an unparseable base makes every relative href invalid", () => {
    expect(normalizeUrl("x", "not a url")).toEqual({ kind: "skip", reason: "invalid" });
  });

  test.each([
    ["fragment only is the page itself", "#top", "https://example.com/docs/guide.html?v=1", "top"],
    ["fragment dropped from the URL, kept apart", "/a#b", "https://example.com/a", "b"],
    ["fragment percent-encoded as the URL parser writes it", "/a#caf\u00e9 x", "https://example.com/a", "caf%C3%A9%20x"],
    ["an empty fragment is no fragment", "/a#", "https://example.com/a", undefined],
  ])("%s: %p", (_name, raw, url, fragment) => {
    expect(normalizeUrl(raw, BASE)).toEqual(fragment === undefined ? { kind: "url", url } : { kind: "url", url, fragment });
  });

  test(`longer than MAX_URL_LENGTH (${MAX_URL_LENGTH}) once normalised is too_long; exactly the limit is fine`, () => {
    const prefix = "https://example.com/";
    const atLimit = prefix + "a".repeat(MAX_URL_LENGTH - prefix.length);
    expect(normalizeUrl(atLimit, BASE)).toEqual({ kind: "url", url: atLimit });
    expect(normalizeUrl(`${atLimit}a`, BASE)).toEqual({ kind: "skip", reason: "too_long", url: `${atLimit}a` });
    // The fragment is dropped before measuring.
    expect(normalizeUrl(`${atLimit}#${"f".repeat(100)}`, BASE)).toEqual({ kind: "url", url: atLimit, fragment: "f".repeat(100) });
  });
});

describe("isInternal: same host and effective port", () => {
  test.each([
    ["https://example.com/a", "https://example.com/", true],
    ["https://example.com:443/a", "https://example.com/", true],
    ["http://example.com/a", "https://example.com/", false],
    ["https://example.com:8443/a", "https://example.com/", false],
    ["https://www.example.com/a", "https://example.com/", false],
    ["https://EXAMPLE.com/a", "https://example.com/", true],
    ["http://127.0.0.1:8080/a", "http://127.0.0.1:8080/", true],
    ["http://127.0.0.1:8081/a", "http://127.0.0.1:8080/", false],
    ["http://localhost:8080/a", "http://127.0.0.1:8080/", false],
    ["http://example.com:443/a", "https://example.com/", true],
  ])("%s on site %s → %p", (target, site, expected) => {
    expect(isInternal(new URL(target), new URL(site))).toBe(expected);
  });

  test("takes a plain origin object too", () => {
    const site = { protocol: "http:", hostname: "127.0.0.1", port: "" };
    expect(isInternal(new URL("http://127.0.0.1:80/x"), site)).toBe(true);
    expect(isInternal(new URL("http://127.0.0.1:81/x"), site)).toBe(false);
  });
});

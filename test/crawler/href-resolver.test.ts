import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HrefResolver } from "../../src/crawler/href-resolver.ts";
import { normalizeUrl } from "../../src/crawler/normalize.ts";
import { RealisticSite } from "../fixtures/site-realistic.ts";

// The fast path must give the URL parser's exact result, whatever the href: every href here is resolved both
// ways and compared, and the fast path must have taken a good share of them (or it proves nothing).

const BASES = [
  "http://127.0.0.1:8080/docs/s3/page-17.html",
  "http://127.0.0.1:8080/docs/s3/",
  "http://127.0.0.1:8080/",
  "https://Example.COM:443/a/b/c.html?v=1&x=y#top",
  "https://example.com:8443/a//b/",
  "http://example.com//x",
  "http://example.com/a/b?",
  "http://xn--bcher-kva.example/lib/",
  "http://user:pw@example.com/a/b.html", // user info: the parser's business
  "http://[::1]:8080/a/b.html",
  "https://example.com/%2e%2E/a/%7Eb.html",
];

/** Pieces the fast path may take, and pieces it must leave to the parser (picked one time in six). */
const PLAIN_PIECES = ["", ".", "..", "...", "a", "b.html", "page-3.html", "x.y", "a:b", "1a:b", ":x", "~u", "a;b=c", "!$&()*+,", "@", "..a", "a.."];
const ODD_PIECES = ["%2e", "%2E%2e", ".%2e", "%41", "a b", "é", "a\\b", "a|b", "a^b", "{x}", "a`b", "[x]", "'q'", '"q"', "<x>", "\t", "\n", " "];
const SEPARATORS = ["/", "/", "/", "?", "#", "//"];

/** Deterministic hrefs built from the pieces above, with every prefix form real pages use. */
function generatedHrefs(count: number): string[] {
  let seed = 0x2545f491;
  const next = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const prefixes = [
    "",
    "./",
    "../",
    "../../",
    "/",
    "//",
    "?",
    "#",
    "http://127.0.0.1:8080/",
    "http://127.0.0.1:8080",
    "HTTP://127.0.0.1:8080/",
    "http://127.0.0.1:80/",
    "https://example.com/",
    "https://example.com:8443/",
    "http://example.com/",
    "mailto:",
    "javascript:",
    " ",
    "\\",
  ];
  const hrefs: string[] = [];
  for (let i = 0; i < count; i++) {
    let href = prefixes[next(prefixes.length)]!;
    const parts = 1 + next(5);
    for (let p = 0; p < parts; p++) {
      href += next(6) === 0 ? ODD_PIECES[next(ODD_PIECES.length)]! : PLAIN_PIECES[next(PLAIN_PIECES.length)]!;
      if (p < parts - 1 || next(3) === 0) href += SEPARATORS[next(SEPARATORS.length)]!;
    }
    hrefs.push(href);
  }
  return hrefs;
}

const PYTHON_DOCS = "/usr/share/doc/python3.11/html";

/** Every href and src of the HTML files under `dir` (as written, entities other than &amp; left alone). */
function realHrefs(dir: string, limit: number): string[] {
  const hrefs: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path).sort()) {
      if (hrefs.length >= limit) return;
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".html")) {
        for (const match of readFileSync(full, "utf8").matchAll(/(?:href|src)="([^"]*)"/g)) hrefs.push(match[1]!.replaceAll("&amp;", "&"));
      }
    }
  };
  walk(dir);
  return hrefs.slice(0, limit);
}

function expectSameAsParser(hrefs: readonly string[], bases: readonly string[]): number {
  let fast = 0;
  for (const base of bases) {
    const resolver = new HrefResolver(base);
    for (const href of hrefs) {
      const quick = resolver.fast(href);
      if (quick !== null) {
        fast++;
        expect({ base, href, result: quick }).toEqual({ base, href, result: normalizeUrl(href, base) });
      }
      expect({ base, href, result: resolver.normalize(href) }).toEqual({ base, href, result: normalizeUrl(href, base) });
    }
  }
  return fast;
}

describe("HrefResolver gives the URL parser's result", () => {
  test("on generated hrefs of every form", () => {
    const hrefs = generatedHrefs(6000);
    const fast = expectSameAsParser(hrefs, BASES);
    expect(fast).toBeGreaterThan((hrefs.length * BASES.length) / 5);
  }, 30_000); // 66,000 comparisons, each also through `new URL`

  test("on the realistic synthetic site's pages", () => {
    const origins = { internal: "http://127.0.0.1:8080", external: "http://127.0.0.1:8081", refused: "http://127.0.0.1:8082" };
    const site = new RealisticSite(origins, { pages: 1000, seed: 7 });
    const hrefs: string[] = [];
    for (const page of [0, 1, 17, 999]) {
      for (const match of site.pageHtml(page).matchAll(/(?:href|src)="([^"]*)"/g)) hrefs.push(match[1]!.replaceAll("&amp;", "&"));
    }
    expect(hrefs.length).toBeGreaterThan(100);
    const fast = expectSameAsParser(hrefs, [site.pageUrl(17), site.rootUrl]);
    expect(fast).toBeGreaterThan(hrefs.length);
  });

  test.skipIf(!existsSync(PYTHON_DOCS))(
    "on the python3 documentation's hrefs (needs python3-doc)",
    () => {
      const hrefs = realHrefs(PYTHON_DOCS, 40_000);
      expect(hrefs.length).toBeGreaterThan(10_000);
      const fast = expectSameAsParser(hrefs, ["http://127.0.0.1:8080/library/os.html", "http://127.0.0.1:8080/c-api/", "https://docs.python.org/3.11/"]);
      expect(fast).toBeGreaterThan(hrefs.length * 2);
    },
    60_000,
  ); // 120,000 comparisons

  test("on hand-picked edge cases", () => {
    const hrefs = [
      "",
      "?",
      "#",
      "?#",
      "#x",
      "?q#f",
      "a#",
      "a#b#c",
      "a#?x",
      "a?b?c",
      "./",
      "../",
      "..",
      "./..",
      "a/..",
      "a/../",
      "a/./b",
      "/..",
      "/../a",
      "../../../../x",
      "....",
      ".a",
      "a.",
      "/.",
      "/./",
      "a/.",
      "a/.?x",
      "a/..#f",
      "http://127.0.0.1:8080/",
      "http://127.0.0.1:8080/..",
      "http://127.0.0.1:8080?x",
      "http://127.0.0.1:8080#x",
      "http://127.0.0.1:8080/a?b#c",
      "http:/x",
      "http:x",
      "HTtp://127.0.0.1:8080/",
      // Dots inside segments (no dot segment: the path is taken as written), and dot segments past a query or
      // in a full URL of the site (moved by the parser's path state).
      "a/.b",
      "a/b.",
      "a./b",
      "a.b/c.d.html",
      "a/.b/..",
      "a?./b",
      "a?x/../y",
      "/a/./b?x=/./#/../",
      "./?x",
      "../?x#y",
      "?./x",
      "#./x",
      "x/.#f",
      "http://127.0.0.1:8080/./a",
      "http://127.0.0.1:8080/a/..?q#f",
      "http://127.0.0.1:8080/a.b/.c",
      "http://127.0.0.1:8080/a?./..",
      "https://example.com:8443/a/../b",
      "https://example.com:443/a/../b",
      "http://xn--bcher-kva.example/lib/./x",
      "http://bücher.example/lib/x",
      "/a%2e/b",
      "/a/%2e%2e/b",
      "a b/../c",
    ];
    const fast = expectSameAsParser(hrefs, BASES);
    expect(fast).toBeGreaterThan(hrefs.length * 3);
  });

  test("url() gives normalize's URL and fragment, and null where it names no URL", () => {
    const hrefs = [...generatedHrefs(2000), "", "#", "#f", "a#b%20c", "mailto:x", "javascript:void(0)", "http://[bad", `/${"x".repeat(9000)}`];
    for (const base of BASES) {
      const resolver = new HrefResolver(base);
      for (const href of hrefs) {
        const expected = normalizeUrl(href, base);
        // Twice: the second answer comes from the page's cache.
        for (let i = 0; i < 2; i++) {
          const url = resolver.url(href);
          const fragment = resolver.fragment;
          expect({ base, href, url, fragment }).toEqual(
            expected.kind === "url" ? { base, href, url: expected.url, fragment: expected.fragment } : { base, href, url: null, fragment: undefined },
          );
        }
      }
    }
  });
});

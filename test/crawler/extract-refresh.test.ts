import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";
import { refreshUrl } from "../../src/crawler/link-tags.ts";

describe("refreshUrl: HTML's declarative refresh rules", () => {
  test.each([
    ["5; url=/next", "/next"],
    ["0;URL='x'", "x"],
    ['0; url="/quoted page"', "/quoted page"],
    ["0;url='x'y", "x"],
    ["0; url='unterminated", "unterminated"],
    ["3 ; URL = /spaced", "/spaced"],
    ["1, /comma", "/comma"],
    ["1 /space-only", "/space-only"],
    ["0; /no-prefix", "/no-prefix"],
    ["0; 'quoted-no-prefix'", "quoted-no-prefix"],
    ["0; urls.html", "urls.html"],
    ["0; url /no-equals", "url /no-equals"],
    ["2.5; url=/fraction", "/fraction"],
    [".5; url=/dot", "/dot"],
    ["  7;url=https://other.example/", "https://other.example/"],
  ])("%p → %p", (content, expected) => {
    expect(refreshUrl(content)).toBe(expected);
  });

  test.each(["", "5", " 10 ", "5;", "5; url=", "5; url=''", "abc; url=/x", "5x; url=/x", "; url=/x"])("no target: %p", (content) => {
    expect(refreshUrl(content)).toBeNull();
  });
});

describe("meta refresh in documents", () => {
  test.each([
    [`<meta http-equiv="refresh" content="0;URL='/moved'">`, "https://site.example/moved", ""],
    [`<meta http-equiv="REFRESH" content="5; url=next.html">`, "https://site.example/dir/next.html", ""],
    [`<meta content="0; url=//other.example/x" http-equiv="refresh">`, "https://other.example/x", ""],
    [`<meta http-equiv="refresh" content="0; url=/a?b=1&amp;c=2#f">`, "https://site.example/a?b=1&c=2", "f"],
  ])("%s → %s, an anchor without text", (html, url, fragment) => {
    const expected =
      fragment === "" ? { url, kind: "anchor" as const, text: "", tag: "meta" } : { url, fragment, kind: "anchor" as const, text: "", tag: "meta" };
    expect(extractLinks(html, "https://site.example/dir/page")).toEqual([expected]);
  });

  test("a refresh to another scheme is skipped", () => {
    expect(extractLinks(`<meta http-equiv="refresh" content="0; url=javascript:alert(1)">`, "https://site.example/")).toEqual([]);
  });
});

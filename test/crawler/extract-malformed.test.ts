import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";

const PAGE = "https://site.example/";
const pairs = (html: string): string[][] => extractLinks(html, PAGE).map((l) => [l.url, l.text]);

describe("malformed HTML never throws and still yields the links a browser would see", () => {
  test.each([
    ["unclosed tags", `<div><p><a href="/a">A<span>b`, [["https://site.example/a", "Ab"]]],
    ["stray </a>", `</a><a href="/a">A</a></a></a>text`, [["https://site.example/a", "A"]]],
    // As in browsers, the value runs to the next quote and the rest of the tag is odd attributes.
    ["unterminated attribute quote", `<a href="/a>A</a><a href="/b">B</a>`, [["https://site.example/a%3EA%3C/a%3E%3Ca%20href=", "B"]]],
    ["unterminated tag at the end", `<a href="/a">A</a><a href="/b`, [["https://site.example/a", "A"]]],
    ["attribute without value", `<a href>A</a>`, [["https://site.example/", "A"]]],
    ["duplicate attribute: the first wins", `<a href="/first" href="/second">A</a>`, [["https://site.example/first", "A"]]],
    ["garbage between tags", `<<a href="/a">A</a>>&&;<//>< a href="/not">`, [["https://site.example/a", "A"]]],
    ["unclosed comment swallows the rest", `<a href="/a">A</a><!-- <a href="/b">B</a>`, [["https://site.example/a", "A"]]],
    ["CDATA in HTML is a bogus comment", `<![CDATA[<a href="/c">C</a>]]><a href="/a">A</a>`, [["https://site.example/a", "A"]]],
    ["links in a raw-text element are text", `<textarea><a href="/t">T</a></textarea><title><a href="/u">U</a></title>`, []],
    ["empty document", ``, []],
  ])("%s", (_name, html, expected) => {
    expect(pairs(html)).toEqual(expected);
  });
});

describe("<template> and <noscript>", () => {
  test("links inside <template> are skipped: inert until a script clones them", () => {
    const html = `<template><a href="/{{id}}">T</a><img src="/t.png"><template><a href="/inner">I</a></template></template><a href="/after">After</a>`;
    expect(pairs(html)).toEqual([["https://site.example/after", "After"]]);
  });

  test("links inside <noscript> are checked: visitors without JavaScript follow them", () => {
    const html = `<noscript><a href="/no-js">Plain</a><img src="/pixel.gif" alt=""></noscript>`;
    expect(pairs(html)).toEqual([
      ["https://site.example/no-js", "Plain"],
      ["https://site.example/pixel.gif", ""],
    ]);
  });

  test("a template inside an anchor adds no text to it", () => {
    expect(pairs(`<a href="/a">A<template>hidden</template>B</a>`)).toEqual([["https://site.example/a", "AB"]]);
  });
});

import { describe, expect, test } from "bun:test";
import { extractLinks, MAX_LINK_TEXT } from "../../src/crawler/extract.ts";

const PAGE = "https://site.example/";
const texts = (html: string): string[] => extractLinks(html, PAGE).map((l) => l.text);

describe("link text: collapsed content of the anchor", () => {
  test.each([
    ["plain", `<a href="/x">Home</a>`, ["Home"]],
    ["whitespace runs collapse, ends trimmed", `<a href="/x">\n  Read\t\tthe\r\n   docs  </a>`, ["Read the docs"]],
    ["nested inline markup", `<a href="/x"><b>Bold</b> and <i>italic</i></a>`, ["Bold and italic"]],
    ["block children are separated only by their whitespace", `<a href="/x"><span>A</span><span>B</span></a>`, ["AB"]],
    ["entities decoded", `<a href="/x">Fish &amp; Chips&nbsp;&lt;3</a>`, ["Fish & Chips <3"]],
    ["empty anchor", `<a href="/x"></a>`, [""]],
    ["comments are not text", `<a href="/x">A<!-- hidden -->B</a>`, ["AB"]],
    ["script and style inside are not text", `<a href="/x">A<script>var s = "no";</script><style>.x{}</style>B</a>`, ["AB"]],
    ["the wrapped image's alt is the text", `<a href="/x"><img src="/i.png" alt="Company logo"></a>`, ["Company logo", "Company logo"]],
    ["alt joins the surrounding text", `<a href="/x">Go<img src="/i.png" alt=" to  start ">now</a>`, ["Go to start now", "to start"]],
    ["image without alt adds nothing", `<a href="/x"> <img src="/i.png"> Next</a>`, ["Next", ""]],
    ["image alt only inside an anchor", `<img src="/i.png" alt="Alone"><a href="/x">T</a>`, ["Alone", "T"]],
    ["scripts and stylesheets have no text", `<script src="/a.js"></script><link rel="stylesheet" href="/s.css">`, ["", ""]],
  ])("%s", (_name, html, expected) => {
    expect(texts(html)).toEqual(expected);
  });

  test("an <a> inside an open <a> closes the first, as browsers do", () => {
    const links = extractLinks(`<a href="/1">one <a href="/2">two</a> after</a>`, PAGE);
    expect(links.map((l) => [l.url, l.text])).toEqual([
      ["https://site.example/1", "one"],
      ["https://site.example/2", "two"],
    ]);
  });

  test("an unclosed anchor takes the text up to the end of the document", () => {
    expect(texts(`<p><a href="/x">dangling <b>text`)).toEqual(["dangling text"]);
  });
});

describe(`link text: capped at ${MAX_LINK_TEXT} code points`, () => {
  test("exactly the cap is kept whole, one more is cut", () => {
    expect(texts(`<a href="/x">${"a".repeat(MAX_LINK_TEXT)}</a>`)[0]).toBe("a".repeat(MAX_LINK_TEXT));
    expect(texts(`<a href="/x">${"a".repeat(MAX_LINK_TEXT + 1)}</a>`)[0]).toBe("a".repeat(MAX_LINK_TEXT));
  });

  test("counted in code points: an astral character at the boundary is kept whole, never half", () => {
    // 299 ASCII + 🦀 (two UTF-16 units) = 300 code points, 301 units: all of it fits.
    const fits = `${"a".repeat(MAX_LINK_TEXT - 1)}🦀`;
    expect(texts(`<a href="/x">${fits}tail</a>`)[0]).toBe(fits);
    // 300 code points of crabs (600 units) and more: 300 whole crabs, no lone surrogate.
    const crabs = texts(`<a href="/x">${"🦀".repeat(MAX_LINK_TEXT + 5)}</a>`)[0] ?? "";
    expect(Array.from(crabs)).toHaveLength(MAX_LINK_TEXT);
    expect(crabs).toBe("🦀".repeat(MAX_LINK_TEXT));
    expect(crabs.isWellFormed()).toBe(true);
  });

  test("collapsing happens before the cap", () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" \n\t ");
    const text = texts(`<a href="/x">${words}</a>`)[0] ?? "";
    expect(text).toBe(words.replace(/\s+/g, " ").slice(0, MAX_LINK_TEXT).trimEnd());
  });

  test("a cut that lands on a space leaves no trailing space", () => {
    const text = texts(`<a href="/x">${"a".repeat(MAX_LINK_TEXT - 1)} b</a>`)[0];
    expect(text).toBe("a".repeat(MAX_LINK_TEXT - 1));
  });

  test("an anchor around a huge page: same capped text, memory stays bounded", () => {
    const body = `<p>${"lorem ipsum ".repeat(50_000)}</p>`.repeat(4);
    const text = texts(`<a href="/x">  ${body}</a>`)[0] ?? "";
    expect(text).toBe("lorem ipsum ".repeat(30).slice(0, MAX_LINK_TEXT).trimEnd());
  });

  test("image alt is collapsed and capped the same way", () => {
    const alt = `  ${"b".repeat(MAX_LINK_TEXT)}  more`;
    expect(texts(`<img src="/i.png" alt="${alt}">`)).toEqual(["b".repeat(MAX_LINK_TEXT)]);
  });
});

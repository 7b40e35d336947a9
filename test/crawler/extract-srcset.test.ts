import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";
import { srcsetUrls } from "../../src/crawler/link-tags.ts";

describe("srcsetUrls: HTML's candidate list rules", () => {
  test.each([
    ["one URL", "a.png", ["a.png"]],
    ["density descriptors", "a.png 1x, b.png 2x", ["a.png", "b.png"]],
    ["width descriptors, odd spacing", "  a.png   480w ,\n b.png\t800w  ", ["a.png", "b.png"]],
    ["comma inside a URL stays", "a,b.png 1x, c.png 2x", ["a,b.png", "c.png"]],
    ["commas inside a data-like URL stay", "/img?size=1,2,3 1x", ["/img?size=1,2,3"]],
    ["a comma with no whitespace after it is inside the URL", "a.png,b.png 2x", ["a.png,b.png"]],
    ["comma right after a descriptor ends the candidate", "a.png 1x,b.png 2x", ["a.png", "b.png"]],
    ["trailing commas stripped from a URL", "a.png,, b.png", ["a.png", "b.png"]],
    ["comma inside descriptor parentheses does not split", "a.png foo(1, 2) 1x, b.png", ["a.png", "b.png"]],
    ["leading and repeated commas skipped", ", ,a.png 1x,, ,b.png", ["a.png", "b.png"]],
    ["absolute and protocol-relative", "https://cdn.example/a.png 1x, //cdn.example/b.png 2x", ["https://cdn.example/a.png", "//cdn.example/b.png"]],
    ["empty", "", []],
    ["only separators", " , ,, ", []],
  ])("%s: %p", (_name, value, expected) => {
    expect(srcsetUrls(value)).toEqual(expected);
  });
});

describe("srcset in documents", () => {
  const PAGE = "https://site.example/gallery/";

  test("every candidate of img and source is an image link", () => {
    const html = `<picture><source srcset="w.webp 1x, w@2x.webp 2x"><img src="f.jpg" srcset="f,1.jpg 1x, f@2x.jpg 2x" alt="Cat"></picture>`;
    expect(extractLinks(html, PAGE).map((l) => [l.tag, l.url, l.text])).toEqual([
      ["source", "https://site.example/gallery/w.webp", ""],
      ["source", "https://site.example/gallery/w@2x.webp", ""],
      ["img", "https://site.example/gallery/f.jpg", "Cat"],
      ["img", "https://site.example/gallery/f,1.jpg", "Cat"],
      ["img", "https://site.example/gallery/f@2x.jpg", "Cat"],
    ]);
  });

  test("candidates with other schemes are dropped, the rest kept", () => {
    const html = `<img srcset="data:image/png;base64,AAAA 1x, real.png 2x">`;
    // Per the spec a URL is a run of non-whitespace: the data: URL's comma does not split it.
    expect(extractLinks(html, PAGE).map((l) => l.url)).toEqual(["https://site.example/gallery/real.png"]);
  });
});

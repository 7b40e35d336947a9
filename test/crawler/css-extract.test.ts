import { expect, test } from "bun:test";
import { extractStylesheetLinks } from "../../src/crawler/css-extract.ts";

/**
 * A stylesheet's links: resolved against the sheet's own URL, schemes other than http(s) left out as for hrefs,
 * unparseable URLs kept as uncheckable, and at most maxLinks kept with the rest counted.
 */

const SHEET = "https://site.example/theme/css/main.css";

test("URLs resolve against the stylesheet, not the page that links it; the fragment is dropped", () => {
  const { links } = extractStylesheetLinks(
    `@import "../base.css"; a{b:url(/abs.png);c:url(img/rel.png);d:url(//cdn.example/x.woff2);e:url(sprite.svg#icon)}`,
    SHEET,
    {
      maxLinks: 100,
      cut: false,
    },
  );
  expect(links).toEqual([
    { url: "https://site.example/theme/base.css", kind: "stylesheet", text: "", tag: "css" },
    { url: "https://site.example/abs.png", kind: "stylesheet", text: "", tag: "css" },
    { url: "https://site.example/theme/css/img/rel.png", kind: "stylesheet", text: "", tag: "css" },
    { url: "https://cdn.example/x.woff2", kind: "stylesheet", text: "", tag: "css" },
    { url: "https://site.example/theme/css/sprite.svg", kind: "stylesheet", text: "", tag: "css" },
  ]);
});

test("other schemes are not links; a URL that does not parse is kept as uncheckable, as an href would be", () => {
  const { links } = extractStylesheetLinks(`a{b:url(ftp://example.com/x.png);c:url("javascript:alert(1)");d:url("http://[bad");e:url(mailto:x@y)}`, SHEET, {
    maxLinks: 100,
    cut: false,
  });
  expect(links).toEqual([{ url: "http://[bad", kind: "stylesheet", text: "", tag: "css", uncheckable: "invalid_url" }]);
});

test("at most maxLinks are kept, in order, and the rest counted; data: URLs take no room", () => {
  const css = Array.from({ length: 10 }, (_, i) => `.a${i}{b:url(data:image/png;base64,AA==)} .b${i}{b:url(/i${i}.png)}`).join("\n");
  const { links, dropped } = extractStylesheetLinks(css, SHEET, { maxLinks: 3, cut: false });
  expect(links.map((link) => link.url)).toEqual(["https://site.example/i0.png", "https://site.example/i1.png", "https://site.example/i2.png"]);
  expect(dropped).toBe(7);
});

import { describe, expect, test } from "bun:test";
import { type ExtractedLink, extractLinks } from "../../src/crawler/extract.ts";
import { MAX_URL_LENGTH } from "../../src/crawler/normalize.ts";

const PAGE = "https://site.example/dir/page.html";

describe("extractLinks: every row of the tag table", () => {
  test.each<[string, string, ExtractedLink]>([
    ["a[href]", `<a href="/x">X</a>`, { url: "https://site.example/x", kind: "anchor", text: "X", tag: "a" }],
    ["area[href] (text from alt)", `<map><area href="/x" alt="Region"></map>`, { url: "https://site.example/x", kind: "anchor", text: "Region", tag: "area" }],
    ["img[src] (text from alt)", `<img src="i.png" alt="Logo">`, { url: "https://site.example/dir/i.png", kind: "image", text: "Logo", tag: "img" }],
    ["img[srcset]", `<img srcset="i.png 2x">`, { url: "https://site.example/dir/i.png", kind: "image", text: "", tag: "img" }],
    [
      "source[srcset]",
      `<picture><source srcset="/p.webp" type="image/webp"></picture>`,
      { url: "https://site.example/p.webp", kind: "image", text: "", tag: "source" },
    ],
    [
      "source[src] in video is media (extract-tag-rows.test.ts has the rest)",
      `<video><source src="/v.mp4"></video>`,
      { url: "https://site.example/v.mp4", kind: "media", text: "", tag: "source" },
    ],
    ["script[src]", `<script src="/app.js"></script>`, { url: "https://site.example/app.js", kind: "script", text: "", tag: "script" }],
    ["link[rel=stylesheet][href]", `<link rel="stylesheet" href="/s.css">`, { url: "https://site.example/s.css", kind: "stylesheet", text: "", tag: "link" }],
    [
      "link rel token among others, any case",
      `<link rel="Alternate  STYLESHEET" href="/alt.css">`,
      { url: "https://site.example/alt.css", kind: "stylesheet", text: "", tag: "link" },
    ],
    ["meta refresh", `<meta http-equiv="Refresh" content="5; url=/next">`, { url: "https://site.example/next", kind: "anchor", text: "", tag: "meta" }],
    ["svg a[xlink:href]", `<svg><a xlink:href="/s">S</a></svg>`, { url: "https://site.example/s", kind: "anchor", text: "S", tag: "a" }],
    [
      "svg a[href] wins over xlink:href",
      `<svg><a href="/new" xlink:href="/old">S</a></svg>`,
      { url: "https://site.example/new", kind: "anchor", text: "S", tag: "a" },
    ],
    ["svg image[href]", `<svg><image href="/i.svg"/></svg>`, { url: "https://site.example/i.svg", kind: "image", text: "", tag: "image" }],
    ["HTML <image> is img", `<image src="/legacy.png" alt="L">`, { url: "https://site.example/legacy.png", kind: "image", text: "L", tag: "img" }],
    ["upper-case tags and attributes", `<A HREF="/UP">Up</A>`, { url: "https://site.example/UP", kind: "anchor", text: "Up", tag: "a" }],
  ])("%s", (_name, html, expected) => {
    expect(extractLinks(html, PAGE)).toEqual([expected]);
  });

  test("img with both src and srcset gives every URL, src first", () => {
    const urls = extractLinks(`<img src="a.png" srcset="b.png 1x, c.png 2x" alt="A">`, PAGE).map((l) => [l.url, l.text]);
    expect(urls).toEqual([
      ["https://site.example/dir/a.png", "A"],
      ["https://site.example/dir/b.png", "A"],
      ["https://site.example/dir/c.png", "A"],
    ]);
  });
});

describe("extractLinks: what is not a link", () => {
  test.each([
    ["a without href", `<a name="top">Top</a>`],
    [
      "link rel outside the table",
      `<link rel="dns-prefetch" href="//cdn.example"><link rel="preconnect" href="/p"><link rel="prefetch" href="/n"><link rel="stylesheets" href="/x.css">`,
    ],
    ["link without rel", `<link href="/s.css">`],
    ["meta other than refresh", `<meta name="description" content="5; url=/x"><meta http-equiv="content-type" content="text/html">`],
    ["meta refresh without URL reloads the page itself", `<meta http-equiv="refresh" content="30">`],
    ["inline script", `<script>location.href = "/x"</script>`],
    ["empty img src, script src, link href: no request at all", `<img src=""><script src=" "></script><link rel="stylesheet" href="">`],
    ["tags outside the table", `<div data-href="/d"></div><button formaction="/b"></button><applet code="/a"></applet>`],
    ["a tag name that only looks like a", `<abbr href="/x">x</abbr>`],
  ])("%s", (_name, html) => {
    expect(extractLinks(html, PAGE)).toEqual([]);
  });

  test.each([
    "mailto:me@site.example",
    "tel:+15551234567",
    "  JavaScript:void(0)",
    "java\tscript:alert(1)",
    "java&#9;script:alert(1)",
    "JAVASCRIPT:x",
    "data:text/html,hi",
    "ftp://files.example/x",
  ])("other schemes are no links to check: %p", (href) => {
    expect(extractLinks(`<a href="${href}">x</a><img src="${href}">`, PAGE)).toEqual([]);
  });

  test.each(["http://exa mple/", "http://[::1", "https://127.0.0.1:99999/", "http://"])(
    "an href that does not parse is kept as written, uncheckable: %p",
    (href) => {
      expect(extractLinks(`<a href="${href}">x</a><img src=" ${href} " alt="i">`, PAGE)).toEqual([
        { url: href, kind: "anchor", text: "x", tag: "a", uncheckable: "invalid_url" },
        { url: href, kind: "image", text: "i", tag: "img", uncheckable: "invalid_url" },
      ]);
    },
  );

  test("a URL longer than MAX_URL_LENGTH is kept cut, with its length, uncheckable", () => {
    for (const length of [2_100, 3_000, 100_000]) {
      const href = `/${"x".repeat(length)}`;
      const full = `https://site.example${href}`;
      const [link] = extractLinks(`<a href="${href}">long</a>`, PAGE);
      expect(link).toEqual({
        url: `${full.slice(0, MAX_URL_LENGTH)}…[${full.length} characters]`,
        kind: "anchor",
        text: "long",
        tag: "a",
        uncheckable: "url_too_long",
      });
    }
  });
});

describe("extractLinks: URLs and attribute values", () => {
  test.each([
    ["relative", "next.html", "https://site.example/dir/next.html"],
    ["root-relative", "/root", "https://site.example/root"],
    ["absolute", "http://other.example/x", "http://other.example/x"],
    ["protocol-relative", "//other.example/x", "https://other.example/x"],
    ["fragment only is the page itself", "#top", PAGE],
    ["fragment dropped", "/a?q=1#s", "https://site.example/a?q=1"],
    ["empty href is the page itself", "", PAGE],
    ["entities decoded", "/a?x=1&amp;y=2", "https://site.example/a?x=1&y=2"],
    ["numeric entities decoded", "/caf&#233;", "https://site.example/caf%C3%A9"],
    ["whitespace around stripped", "  /spaced\n", "https://site.example/spaced"],
  ])("%s: %p", (_name, href, expected) => {
    expect(extractLinks(`<a href="${href}">x</a>`, PAGE).map((l) => l.url)).toEqual([expected]);
  });

  test("unquoted and single-quoted attributes", () => {
    expect(extractLinks(`<a href=/u>u</a><a href='/s'>s</a>`, PAGE).map((l) => l.url)).toEqual(["https://site.example/u", "https://site.example/s"]);
  });

  test("duplicates are kept, in document order, each with its own text", () => {
    const links = extractLinks(`<a href="/x">one</a><img src="/i.png"><a href="/x#frag">two</a>`, PAGE);
    expect(links.map((l) => [l.url, l.text])).toEqual([
      ["https://site.example/x", "one"],
      ["https://site.example/i.png", ""],
      ["https://site.example/x", "two"],
    ]);
  });
});

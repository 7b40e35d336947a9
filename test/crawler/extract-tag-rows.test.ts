import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";

// The rows of the tag table added for frames, forms, citations, media and every <link> rel: each row, the
// context a <source> takes its kind from, and the malformed and borderline forms of each.

const PAGE = "https://site.example/dir/page.html";

/** The links of `html` as [kind, url, tag] triples, in document order. */
function found(html: string): [string, string, string][] {
  return extractLinks(html, PAGE).map((link) => [link.kind, link.url, link.tag]);
}

describe("one row per tag: the kind and URL it gives", () => {
  test.each<[string, string, [string, string, string][]]>([
    ["iframe src: a document the page shows, an anchor", `<iframe src="frame.html"></iframe>`, [["anchor", "https://site.example/dir/frame.html", "iframe"]]],
    [
      "frame src",
      `<frameset><frame src="/left.html"><frame src="/right.html"></frameset>`,
      [
        ["anchor", "https://site.example/left.html", "frame"],
        ["anchor", "https://site.example/right.html", "frame"],
      ],
    ],
    ["form action, no method (GET)", `<form action="/search"><input name="q"></form>`, [["anchor", "https://site.example/search", "form"]]],
    ["form action, method=get in any case", `<form method="GeT" action="/s2"></form>`, [["anchor", "https://site.example/s2", "form"]]],
    ["blockquote cite", `<blockquote cite="/source">x</blockquote>`, [["anchor", "https://site.example/source", "blockquote"]]],
    ["q cite", `<q cite="http://other.example/said">x</q>`, [["anchor", "http://other.example/said", "q"]]],
    ["ins cite", `<ins cite="/why-added">x</ins>`, [["anchor", "https://site.example/why-added", "ins"]]],
    ["del cite", `<del cite="/why-removed">x</del>`, [["anchor", "https://site.example/why-removed", "del"]]],
    ["input type=image src", `<input type="image" src="/go.png" alt="Go">`, [["image", "https://site.example/go.png", "input"]]],
    ["input type=IMAGE in upper case", `<input TYPE="IMAGE" src="/go2.png">`, [["image", "https://site.example/go2.png", "input"]]],
    [
      "video src is media, poster an image",
      `<video src="/v.webm" poster="/v.jpg"></video>`,
      [
        ["media", "https://site.example/v.webm", "video"],
        ["image", "https://site.example/v.jpg", "video"],
      ],
    ],
    ["audio src", `<audio src="/a.ogg"></audio>`, [["media", "https://site.example/a.ogg", "audio"]]],
    ["source inside video", `<video><source src="/v.mp4" type="video/mp4"></video>`, [["media", "https://site.example/v.mp4", "source"]]],
    ["source inside audio", `<audio controls><source src="/a.mp3"></audio>`, [["media", "https://site.example/a.mp3", "source"]]],
    [
      "source inside picture stays an image, srcset too",
      `<picture><source src="/p.avif" srcset="/p.webp 1x"><img src="/p.png"></picture>`,
      [
        ["image", "https://site.example/p.avif", "source"],
        ["image", "https://site.example/p.webp", "source"],
        ["image", "https://site.example/p.png", "img"],
      ],
    ],
    [
      "track src",
      `<video src="/v.mp4"><track kind="captions" src="/v.vtt"></video>`,
      [
        ["media", "https://site.example/v.mp4", "video"],
        ["media", "https://site.example/v.vtt", "track"],
      ],
    ],
    ["embed src", `<embed src="/movie.swf" type="application/x-shockwave-flash">`, [["media", "https://site.example/movie.swf", "embed"]]],
    ["object data", `<object data="/figure.svg" type="image/svg+xml">fallback</object>`, [["media", "https://site.example/figure.svg", "object"]]],
    ["link rel=icon", `<link rel="icon" href="/favicon.ico">`, [["image", "https://site.example/favicon.ico", "link"]]],
    ["link rel=shortcut icon", `<link rel="shortcut icon" href="/f.ico">`, [["image", "https://site.example/f.ico", "link"]]],
    ["link rel=apple-touch-icon", `<link rel="apple-touch-icon" href="/t.png">`, [["image", "https://site.example/t.png", "link"]]],
    ["link rel=apple-touch-icon-precomposed", `<link rel="apple-touch-icon-precomposed" href="/tp.png">`, [["image", "https://site.example/tp.png", "link"]]],
    ["link rel=mask-icon", `<link rel="mask-icon" href="/m.svg" color="#000">`, [["image", "https://site.example/m.svg", "link"]]],
    ["link rel=manifest is a script", `<link rel="manifest" href="/app.webmanifest">`, [["script", "https://site.example/app.webmanifest", "link"]]],
    ["link rel=modulepreload", `<link rel="modulepreload" href="/m.js">`, [["script", "https://site.example/m.js", "link"]]],
    ["preload as=script", `<link rel="preload" as="script" href="/p.js">`, [["script", "https://site.example/p.js", "link"]]],
    ["preload as=style", `<link rel="preload" as="style" href="/p.css">`, [["stylesheet", "https://site.example/p.css", "link"]]],
    ["preload as=font", `<link rel="preload" as="font" href="/f.woff2" crossorigin>`, [["stylesheet", "https://site.example/f.woff2", "link"]]],
    [
      "preload as=image with imagesrcset",
      `<link rel="preload" as="image" href="/h.png" imagesrcset="/h1.png 1x, /h2.png 2x">`,
      [
        ["image", "https://site.example/h.png", "link"],
        ["image", "https://site.example/h1.png", "link"],
        ["image", "https://site.example/h2.png", "link"],
      ],
    ],
    [
      "preload as=audio, video, track",
      `<link rel="preload" as="audio" href="/a.mp3"><link rel="preload" as="VIDEO" href="/v.mp4"><link rel="preload" as="track" href="/t.vtt">`,
      [
        ["media", "https://site.example/a.mp3", "link"],
        ["media", "https://site.example/v.mp4", "link"],
        ["media", "https://site.example/t.vtt", "link"],
      ],
    ],
    [
      "alternate stylesheet is a stylesheet, not a page",
      `<link rel="alternate stylesheet" href="/alt.css">`,
      [["stylesheet", "https://site.example/alt.css", "link"]],
    ],
  ])("%s", (_name, html, expected) => {
    expect(found(html)).toEqual(expected);
  });

  test.each(["canonical", "alternate", "next", "prev", "up", "home", "index", "search", "help", "license", "first", "last", "start", "contents", "author"])(
    "link rel=%s is an anchor",
    (rel) => {
      expect(found(`<link rel="${rel.toUpperCase()}" href="/${rel}.html">`)).toEqual([["anchor", `https://site.example/${rel}.html`, "link"]]);
    },
  );
});

describe("malformed and borderline forms", () => {
  test.each<[string, string, [string, string, string][]]>([
    ["a POST form is not a link", `<form method="post" action="/buy"></form>`, []],
    ["POST in upper case", `<form method="POST" action="/buy"></form>`, []],
    ["a dialog form is not a link", `<form method="dialog" action="/close"></form>`, []],
    // HTML: an invalid method value means GET, and enumerated values are not trimmed.
    ["an invalid method submits with GET", `<form method="bogus" action="/b"></form>`, [["anchor", "https://site.example/b", "form"]]],
    ["`post ` with a space is invalid, so GET", `<form method="post " action="/p"></form>`, [["anchor", "https://site.example/p", "form"]]],
    ["an empty method is GET", `<form method action="/e"></form>`, [["anchor", "https://site.example/e", "form"]]],
    ["an empty action is the document itself", `<form action=""></form>`, [["anchor", PAGE, "form"]]],
    ["a whitespace action is the document itself", `<form action="  "></form>`, [["anchor", PAGE, "form"]]],
    ["a form without action gives no link", `<form><input name="q"></form>`, []],
    ["an unclosed form still counts", `<form action="/open"><input name="q">`, [["anchor", "https://site.example/open", "form"]]],
    // The HTML parser ignores a form start tag inside an open form; htmlparser2 does the same.
    [
      "a nested form is ignored, as browsers do",
      `<form action="/outer"><form action="/inner"></form></form>`,
      [["anchor", "https://site.example/outer", "form"]],
    ],
    ["a javascript: action is no link", `<form action="javascript:void(0)"></form>`, []],
    ["an empty iframe src is about:blank, no request", `<iframe src=""></iframe><iframe></iframe>`, []],
    ["an iframe srcdoc is not a URL", `<iframe srcdoc="<a href=/x>x</a>"></iframe>`, []],
    ["input of another type carries no link", `<input type="text" src="/no.png"><input src="/no2.png">`, []],
    ["empty media sources are no request", `<video src="" poster=" "></video><audio src=""></audio><object data=""></object><embed src="">`, []],
    ["source outside any media or picture element stays an image", `<source src="/loose.png">`, [["image", "https://site.example/loose.png", "source"]]],
    ["source after a closed video is not media", `<video></video><source src="/after.png">`, [["image", "https://site.example/after.png", "source"]]],
    [
      "the nearest element decides: picture inside video",
      `<video><picture><source src="/pic.webp"></picture><source src="/vid.mp4"></video>`,
      [
        ["image", "https://site.example/pic.webp", "source"],
        ["media", "https://site.example/vid.mp4", "source"],
      ],
    ],
    [
      "an unclosed video keeps its sources media",
      `<video><source src="/u1.mp4"><source src="/u2.mp4">`,
      [
        ["media", "https://site.example/u1.mp4", "source"],
        ["media", "https://site.example/u2.mp4", "source"],
      ],
    ],
    ["preload with an unknown or missing as is no link", `<link rel="preload" as="fetch" href="/d.json"><link rel="preload" href="/x">`, []],
    ['preload as="image " with a space is not image', `<link rel="preload" as="image " href="/sp.png">`, []],
    ["cite with only whitespace is no request", `<q cite="   ">x</q>`, []],
    ["media inside a template is inert", `<template><video src="/t.mp4"></video><form action="/tf"></form></template>`, []],
    ["an unparseable object data is recorded as uncheckable", `<object data="http://[::1"></object>`, [["media", "http://[::1", "object"]]],
  ])("%s", (_name, html, expected) => {
    expect(found(html)).toEqual(expected);
  });

  test("a link inside a frame's fallback text is still read; the frame's own text is none", () => {
    const links = extractLinks(`<iframe src="/f.html">no frames <a href="/nf">here</a></iframe>`, PAGE);
    // htmlparser2 reads an iframe's content as text, as browsers with frames do: no link inside it.
    expect(links.map((l) => [l.tag, l.url, l.text])).toEqual([["iframe", "https://site.example/f.html", ""]]);
  });
});

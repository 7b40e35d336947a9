import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/crawler/extract.ts";

const PAGE = "https://site.example/dir/page.html";
const urls = (html: string): string[] => extractLinks(html, PAGE).map((l) => l.url);

describe("<base href>: the first one with an href sets the base for the whole document", () => {
  test.each([
    ["absolute base", `<base href="https://cdn.example/assets/"><a href="x">x</a>`, ["https://cdn.example/assets/x"]],
    ["relative base resolves against the page", `<base href="../other/"><a href="x">x</a>`, ["https://site.example/other/x"]],
    ["root-relative href ignores the base's path", `<base href="/b/c/"><a href="/x">x</a>`, ["https://site.example/x"]],
    ["protocol-relative base", `<base href="//cdn.example/"><img src="i.png">`, ["https://cdn.example/i.png"]],
    [
      "links before the base use it too",
      `<a href="early">e</a><base href="/b/"><a href="late">l</a>`,
      ["https://site.example/b/early", "https://site.example/b/late"],
    ],
    ["a base in the body still counts", `<body><a href="x">x</a><base href="/b/"></body>`, ["https://site.example/b/x"]],
    [
      "only the first base with an href counts",
      `<base target="_blank"><base href="/first/"><base href="/second/"><a href="x">x</a>`,
      ["https://site.example/first/x"],
    ],
    ["an empty base href is the page", `<base href=""><a href="x">x</a>`, ["https://site.example/dir/x"]],
    ["empty href is the base, not the page", `<base href="/b/index.html"><a href="">x</a>`, ["https://site.example/b/index.html"]],
    ["fragment-only href is the base, not the page", `<base href="/b/"><a href="#top">x</a>`, ["https://site.example/b/"]],
    ["the base's own fragment is dropped from results", `<base href="/b/#frag"><a href="">x</a>`, ["https://site.example/b/"]],
    ["unparseable base falls back to the page", `<base href="http://exa mple/"><a href="x">x</a>`, ["https://site.example/dir/x"]],
    ["javascript: base falls back to the page", `<base href="javascript:void(0)"><a href="x">x</a>`, ["https://site.example/dir/x"]],
    ["data: base falls back to the page", `<base href="data:text/html,hi"><a href="x">x</a>`, ["https://site.example/dir/x"]],
    [
      "ftp: base is used, so its relative links are skipped",
      `<base href="ftp://files.example/"><a href="x">x</a><a href="https://abs.example/">a</a>`,
      ["https://abs.example/"],
    ],
    ["a base inside <template> is inert", `<template><base href="/t/"></template><a href="x">x</a>`, ["https://site.example/dir/x"]],
    ["entities in the base are decoded", `<base href="/b/?a=1&amp;c=2"><a href="">x</a>`, ["https://site.example/b/?a=1&c=2"]],
  ])("%s", (_name, html, expected) => {
    expect(urls(html)).toEqual(expected);
  });
});

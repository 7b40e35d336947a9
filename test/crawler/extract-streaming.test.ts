import { describe, expect, test } from "bun:test";
import { createExtractor, type ExtractedLink, extractLinks } from "../../src/crawler/extract.ts";

const PAGE = "https://site.example/dir/page.html";

// Small, but touching every stateful part: an early link before <base>, entities, a multi-byte anchor text,
// an astral character, srcset, meta refresh, a template, a script inside an anchor and nested anchors.
const DOC = `<!doctype html><html><head><meta http-equiv="refresh" content="9; URL='soon'">
<link rel="stylesheet" href="s.css"><base href="/b/"></head><body>
<a href="x?a=1&amp;b=2#f">Caf&eacute; <b>crème</b> 🦀
  brûlée<script>"no"</script></a><img srcset="a,b.png 1x, c.png 2x" alt="Ünï">
<template><a href="/t">T</a></template><a href=one>1<a href=two>2</a></body></html>`;

const EXPECTED: ExtractedLink[] = [
  { url: "https://site.example/b/soon", kind: "anchor", text: "", tag: "meta" },
  { url: "https://site.example/b/s.css", kind: "stylesheet", text: "", tag: "link" },
  { url: "https://site.example/b/x?a=1&b=2", fragment: "f", kind: "anchor", text: "Café crème 🦀 brûlée", tag: "a" },
  { url: "https://site.example/b/a,b.png", kind: "image", text: "Ünï", tag: "img" },
  { url: "https://site.example/b/c.png", kind: "image", text: "Ünï", tag: "img" },
  { url: "https://site.example/b/one", kind: "anchor", text: "1", tag: "a" },
  { url: "https://site.example/b/two", kind: "anchor", text: "2", tag: "a" },
];

function extractInChunks(chunks: readonly string[]): ExtractedLink[] {
  const extractor = createExtractor(PAGE);
  for (const chunk of chunks) extractor.write(chunk);
  return extractor.end();
}

describe("streaming extraction gives the same links however the input is cut", () => {
  test("one write gives the expected links", () => {
    expect(extractLinks(DOC, PAGE)).toEqual(EXPECTED);
  });

  test("two chunks, cut at every position (surrogate pairs included)", () => {
    for (let cut = 0; cut <= DOC.length; cut++) {
      expect({ cut, links: extractInChunks([DOC.slice(0, cut), DOC.slice(cut)]) }).toEqual({ cut, links: EXPECTED });
    }
  });

  test("one UTF-16 unit per write", () => {
    expect(extractInChunks(DOC.split(""))).toEqual(EXPECTED);
  });

  test("bytes cut at every position, decoded with a streaming TextDecoder", () => {
    const bytes = new TextEncoder().encode(DOC);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = new TextDecoder("utf-8", { fatal: true });
      const chunks = [decoder.decode(bytes.subarray(0, cut), { stream: true }), decoder.decode(bytes.subarray(cut))];
      expect({ cut, links: extractInChunks(chunks) }).toEqual({ cut, links: EXPECTED });
    }
  });

  test("three chunks, cut at every pair of positions", () => {
    const step = 7; // every pair would be ~100k parses; a coprime stride still crosses every construct
    for (let first = 0; first <= DOC.length; first++) {
      for (let second = first; second <= DOC.length; second += step) {
        const links = extractInChunks([DOC.slice(0, first), DOC.slice(first, second), DOC.slice(second)]);
        expect({ first, second, links }).toEqual({ first, second, links: EXPECTED });
      }
    }
  });

  test("empty writes change nothing", () => {
    expect(extractInChunks(["", DOC.slice(0, 100), "", "", DOC.slice(100), ""])).toEqual(EXPECTED);
  });
});

import { describe, expect, test } from "bun:test";
import { createExtractor, type ExtractedLink, extractLinks } from "../../src/crawler/extract.ts";

// The extractor does not cut strings for text nobody reads (outside anchors and scanned <style>), and cuts one
// now and then through a long run of such text. Either way, links and their texts must come out as from the
// whole page, whatever the pieces it is fed in.

const PAGE = "https://site.example/docs/page.html";
const PROSE = "Lorem ipsum dolor sit amet, &amp; consectetur <b>adipiscing</b> elit.\n".repeat(3000); // ~200 KiB
const SCRIPT = `var x = "${"<a href=no>".repeat(20_000)}";`; // ~200 KiB of raw text holding no link

const DOC = `<!doctype html><html><head><style>a { color: red }</style><script>${SCRIPT}</script></head><body>
<p>${PROSE}<a href="first.html">First
  link</a> ${PROSE}</p><a href="../up/#sec"><img src="i.png" alt="Alt"> and ${PROSE.slice(0, 500)}</a>
<pre>${PROSE}</pre><a href="/last">Last &amp; least</a></body></html>`;

const EXPECTED: ExtractedLink[] = [
  { url: "https://site.example/docs/first.html", kind: "anchor", text: "First link", tag: "a" },
  {
    url: "https://site.example/up/",
    fragment: "sec",
    kind: "anchor",
    text: expect.stringMatching(/^Alt and Lorem ipsum dolor sit amet, & consectetur adipiscing elit\. Lorem/) as unknown as string,
    tag: "a",
  },
  { url: "https://site.example/docs/i.png", kind: "image", text: "Alt", tag: "img" },
  { url: "https://site.example/last", kind: "anchor", text: "Last & least", tag: "a" },
];

function inPieces(size: number, scanCss: boolean): ExtractedLink[] {
  const extractor = createExtractor(PAGE, { scanCss });
  for (let at = 0; at < DOC.length; at += size) extractor.write(DOC.slice(at, at + size));
  return extractor.end();
}

describe("text outside anchors", () => {
  test("a page with long runs of unread text gives its links and anchor texts", () => {
    expect(extractLinks(DOC, PAGE)).toEqual(EXPECTED);
  });

  test.each([1, 7, 1024, 65_537])("fed in pieces of %p characters, the same links", (size) => {
    const whole = extractLinks(DOC, PAGE);
    expect(inPieces(size, false)).toEqual(whole);
    expect(inPieces(size, true)).toEqual(whole);
  });
});

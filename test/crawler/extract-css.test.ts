import { expect, test } from "bun:test";
import { createExtractor, type ExtractedLink } from "../../src/crawler/extract.ts";

/**
 * The CSS inside a page: `<style>` blocks and `style` attributes give `stylesheet` links resolved against the
 * document's base, in document order, only when the extractor is asked to read CSS (scan_stylesheets).
 */

const PAGE = "https://site.example/dir/page.html";

function extract(html: string, options: { scanCss?: boolean; maxLinks?: number } = { scanCss: true }): { links: ExtractedLink[]; dropped: number } {
  const extractor = createExtractor(PAGE, options);
  extractor.write(html);
  const links = extractor.end();
  return { links, dropped: extractor.dropped };
}

const urls = (html: string): string[][] => extract(html).links.map((link) => [link.url, link.kind, link.tag]);

test("a <style> block's @import and url()s, and style attributes, are stylesheet links of the page", () => {
  const html = `<html><head><style>@import "print.css" print; body{background:url(/img/bg.png)} .x{background-image:image-set("hi.png" 2x)}</style></head>
    <body><div style="background: url('div.png')">x</div><a href="/a" style="cursor:url(c.cur),auto">a</a></body></html>`;
  expect(urls(html)).toEqual([
    ["https://site.example/dir/print.css", "stylesheet", "style"],
    ["https://site.example/img/bg.png", "stylesheet", "style"],
    ["https://site.example/dir/hi.png", "stylesheet", "style"],
    ["https://site.example/dir/div.png", "stylesheet", "div"],
    ["https://site.example/a", "anchor", "a"],
    ["https://site.example/dir/c.cur", "stylesheet", "a"],
  ]);
});

test("they resolve against <base href>, wherever it stands, as every link of the page does", () => {
  const html = `<style>a{b:url(early.png)}</style><base href="https://cdn.example/assets/"><p style="background:url(late.png)">`;
  expect(urls(html).map(([url]) => url)).toEqual(["https://cdn.example/assets/early.png", "https://cdn.example/assets/late.png"]);
});

test("entities in a style attribute are decoded first (it is HTML), a <style> block is raw text", () => {
  expect(urls(`<p style="background:url(&quot;q.png&quot;)">`).map(([url]) => url)).toEqual(["https://site.example/dir/q.png"]);
  expect(urls(`<style>a{b:url(x&amp;y.png)}</style>`).map(([url]) => url)).toEqual(["https://site.example/dir/x&amp;y.png"]);
});

test("not CSS: a <style> of another type, <template> content, data: URLs, fragment-only references", () => {
  const html = `<style type="text/x-scss">a{b:url(scss.png)}</style><style type="TEXT/CSS">a{b:url(ok.png)}</style>
    <template><style>a{b:url(tpl.png)}</style><div style="background:url(tpl2.png)"></div></template>
    <p style="background:url(data:image/png;base64,AA==)"></p><svg style="filter:url(#f)"></svg>`;
  expect(urls(html).map(([url]) => url)).toEqual(["https://site.example/dir/ok.png"]);
});

test("a <style> never closed still gives its URLs when the document ends", () => {
  expect(urls(`<p>x</p><style>a{b:url(last.png)}`).map(([url]) => url)).toEqual(["https://site.example/dir/last.png"]);
});

test("without scanCss nothing is read from CSS (scan_stylesheets off costs nothing)", () => {
  expect(extract(`<style>a{b:url(x.png)}</style><p style="background:url(y.png)">`, {}).links).toEqual([]);
});

test("CSS links share the page's max_links_per_page budget, in document order", () => {
  const { links, dropped } = extract(`<style>a{b:url(1.png)} c{d:url(2.png)}</style><a href="/3">3</a><p style="background:url(4.png)">`, {
    scanCss: true,
    maxLinks: 2,
  });
  expect(links.map((link) => link.url)).toEqual(["https://site.example/dir/1.png", "https://site.example/dir/2.png"]);
  expect(dropped).toBe(2);
});

import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Parser } from "htmlparser2";
import { HtmlScanner, ReadAttributes } from "../../src/crawler/html-scanner.ts";
import { recordEvents, type ScannerEvent, TEST_READ } from "../helpers/scanner-events.ts";
import { SOUP, seeded, tagSoup } from "../helpers/tag-soup.ts";

/**
 * The scanner must tell the extractor exactly what htmlparser2's own parser tells it: the same open and close
 * events, in the same order, with the same names and implied flags, the same text, and of each tag's
 * attributes exactly the ones asked for, with htmlparser2's values. Compared event by event on a document
 * written to hit each rule (names in any case, names cut across chunks, SVG and MathML, unknown and long names,
 * repeated attributes, entities, comments, raw text and RCDATA), on generated tag soup in random chunks, and,
 * when python3-doc is installed, on real pages nobody here wrote.
 */

const READ = TEST_READ;

function wanted(read: ReadAttributes, tag: string, attribs: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(attribs)) if (read.everywhere.has(name) || read.byTag.get(tag)?.has(name)) kept[name] = value;
  return kept;
}

function stockEvents(chunks: readonly string[], read: ReadAttributes): ScannerEvent[] {
  const events: ScannerEvent[] = [];
  const parser = new Parser(recordEvents(events));
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return events.map((event) => (event[0] === "open" ? ["open", event[1], wanted(read, event[1], event[2])] : event));
}

function scannerEvents(chunks: readonly string[], read: ReadAttributes): ScannerEvent[] {
  const events: ScannerEvent[] = [];
  const parser = new HtmlScanner(() => true, read, recordEvents(events));
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return events;
}

const SHORTCUTS = `<!DOCTYPE html><?xml version="1.0"?><HTML><Head><META HTTP-EQUIV="Refresh" Content="0; url=x">
<LINK REL=stylesheet HREF="s.css" AS=style media=all><link rel=icon href=i.ico href=second.ico></head>
<BODY class=b ID=top Style="background:url(bg.png)" data-x="&amp;&lt;">
<A HREF="a?b=1&amp;c=2&#x41;&nbsp;" Class=big TITLE="&quot;t&quot;" id="a1" href=dup>Caf&eacute; <b>bold</b></a>
<a name=anchor1 xlink:href=x href="">empty</a><a hReF='single' iD=mixed>sq</a><a href=unquoted>uq</a>
<img src=a.png alt="An &amp; image" srcset="a.png 1x, b.png 2x" width=10 height=10 loading=lazy>
<image src=renamed.png><input disabled type=image src=in.png>
<my-widget data-src=w.png id=w1 other=o></my-widget><x_y id=underscore href=no></x_y>
<averyveryverylongelementname id=long href=no></averyveryverylongelementname>
<div h\u00e9ref=accent id=\u00e9t\u00e9 data-\u00fc=1 \u212Aid=kelvin>non-ASCII names</div>
<svg viewBox="0 0 1 1"><a xlink:href="svg-a" href=svg-b><image href="svg.png" xlink:href=other /></a>
<foreignObject><div id=fo><a href=in-fo>fo</a></div></foreignObject><linearGradient id=g></linearGradient></svg>
<math><mi id=m>x</mi></math><form action=a><form action=b id=second></form>
<p>one<p>two<ul><li>i<li>j</ul></p><br/></br><table><tr><td>c<td>d</table>
<template><a href=t>t</a></template><script>var a = "<a href=no>";</script><style type=text/css>a{}</style>
<!-- <a href=comment> --><![CDATA[ <a href=cdata> ]]><textarea><a href=ta></textarea>
<a href='it"s &amp; x' title="it's &lt;b&gt;">A long run of text, with "quotes", 'apostrophes' and > signs &amp; an
entity, then &notanentity; &#60; and a bare & in it, and no tag for a while: the tokenizer passes over it whole.</a>
<a href=unclosed>open <div>to the end`;

describe("the scanner answers as htmlparser2's parser", () => {
  test("on a document of every shortcut, whole", () => {
    const events = scannerEvents([SHORTCUTS], READ);
    expect(events).toEqual(stockEvents([SHORTCUTS], READ));
    // The comparison is not empty-handed: attributes asked for came through, the others did not.
    expect(events).toContainEqual(["open", "a", { href: "a?b=1&c=2A\u00a0", id: "a1" }]);
    expect(events).toContainEqual(["open", "my-widget", { "data-src": "w.png", id: "w1" }]);
    expect(events).toContainEqual(["open", "img", { src: "renamed.png" }]);
    expect(events).toContainEqual(["open", "body", { id: "top", style: "background:url(bg.png)" }]);
    expect(events).toContainEqual(["open", "a", { href: 'it"s & x' }]);
  });

  test("cut into two chunks at every position", () => {
    for (let cut = 0; cut <= SHORTCUTS.length; cut++) {
      const chunks = [SHORTCUTS.slice(0, cut), SHORTCUTS.slice(cut)];
      expect({ cut, events: scannerEvents(chunks, READ) }).toEqual({ cut, events: stockEvents(chunks, READ) });
    }
  });

  test("cut into chunks of every size from 1 to 64", () => {
    for (let size = 1; size <= 64; size++) {
      const chunks: string[] = [];
      for (let at = 0; at < SHORTCUTS.length; at += size) chunks.push(SHORTCUTS.slice(at, at + size));
      expect({ size, events: scannerEvents(chunks, READ) }).toEqual({ size, events: stockEvents(chunks, READ) });
    }
  });

  test("with nothing read everywhere, other tags' ids and styles stay out", () => {
    const read = new ReadAttributes(READ.byTag, new Set());
    const events = scannerEvents([SHORTCUTS], read);
    expect(events).toEqual(stockEvents([SHORTCUTS], read));
    expect(events).toContainEqual(["open", "body", {}]);
  });

  test("on generated tag soup, whole, cut in two and in small chunks", () => {
    // 1,500 seeded documents of 1-40 pieces each.
    const random = seeded(20261126);
    const soup = tagSoup(random, SOUP);
    for (let doc = 0; doc < 1500; doc++) {
      const html = soup();
      const cut = Math.floor(random() * (html.length + 1));
      const size = 1 + Math.floor(random() * 7);
      const small: string[] = [];
      for (let at = 0; at < html.length; at += size) small.push(html.slice(at, at + size));
      for (const chunks of [[html], [html.slice(0, cut), html.slice(cut)], small]) {
        const scanned = scannerEvents(chunks, READ);
        const stock = stockEvents(chunks, READ);
        if (!Bun.deepEquals(scanned, stock)) expect({ chunks, events: scanned }).toEqual({ chunks, events: stock });
      }
    }
  });

  test("a page that opens a million elements is read in linear time (end tags of names not open cost nothing)", () => {
    // 10 MB of a hostile page: without counting open elements by name, each `</x>` searched all the `<div>`s still
    // open (10^12 comparisons: a crawl hung for hours; htmlparser2 itself does that search). Read in a child
    // process, so that a regression fails at the time limit instead of hanging the suite in synchronous code.
    const script = `
      import { HtmlScanner, ReadAttributes } from ${JSON.stringify(join(import.meta.dir, "../../src/crawler/html-scanner.ts"))};
      const html = "<div>".repeat(1000000) + "</x>".repeat(1000000) + '<a href="/last">x</a>' + "</div>".repeat(1000);
      const opened = [];
      let closes = 0;
      const read = new ReadAttributes(new Map([["a", new Set(["href"])]]), new Set());
      const scanner = new HtmlScanner(() => false, read, {
        onopentag: (name, attribs) => { if (name === "a") opened.push(attribs.href); },
        ontext: () => {},
        onclosetag: () => { closes++; },
      });
      for (let at = 0; at < html.length; at += 65536) scanner.write(html.slice(at, at + 65536));
      scanner.end();
      console.log(JSON.stringify({ opened, closes }));
    `;
    const child = Bun.spawnSync([process.execPath, "-e", script], { timeout: 20_000, stderr: "pipe" });
    expect({ exitCode: child.exitCode, signal: child.signalCode ?? null, stderr: child.stderr.toString() }).toEqual({ exitCode: 0, signal: null, stderr: "" });
    // Every element opened is closed once: the anchor, the 1,000 divs closed by tags, the rest at the end.
    expect(JSON.parse(child.stdout.toString())).toEqual({ opened: ["/last"], closes: 1_000_001 });
  }, 30_000);

  test("differs from htmlparser2 on purpose: a raw-text element ends only at its end tag, as in browsers", () => {
    // htmlparser2 compares end-tag characters as `c | 0x20`, so U+000F passes for `/` and U+001C for `<`.
    const html = "<script>a<\u000fscript>b<a href=x>y</a>\u001c/script></script><a href=after>z</a>";
    const events = scannerEvents([html], READ);
    expect(events).toEqual([
      ["open", "script", {}],
      ["text", "a<\u000fscript>b<a href=x>y</a>\u001c/script>"],
      ["close", "script", false],
      ["open", "a", { href: "after" }],
      ["text", "z"],
      ["close", "a", false],
    ]);
    expect(stockEvents([html], READ)).not.toEqual(events);
  });

  const docs = ["/usr/share/doc/python3-doc/html", "/usr/share/doc/python3/html"].find((dir) => existsSync(join(dir, "index.html")));
  test.skipIf(docs === undefined)("on real pages (python3-doc), in 4 KiB chunks", () => {
    const pages = ["index.html", "contents.html", "library/os.html", "library/stdtypes.html", "tutorial/classes.html", "genindex-all.html"]
      .map((page) => join(docs!, page))
      .filter((path) => existsSync(path));
    for (const dir of ["library", "reference", "howto"]) {
      for (const name of readdirSync(join(docs!, dir))
        .filter((entry) => entry.endsWith(".html"))
        .slice(0, 10))
        pages.push(join(docs!, dir, name));
    }
    expect(pages.length).toBeGreaterThan(20);
    for (const path of pages) {
      const html = readFileSync(path, "utf8");
      const chunks: string[] = [];
      for (let at = 0; at < html.length; at += 4096) chunks.push(html.slice(at, at + 4096));
      const scanned = scannerEvents(chunks, READ);
      expect(scanned.length).toBeGreaterThan(100);
      expect({ path, events: scanned }).toEqual({ path, events: stockEvents(chunks, READ) });
    }
  });
});

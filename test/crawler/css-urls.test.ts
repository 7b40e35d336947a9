import { describe, expect, test } from "bun:test";
import { cssUrls } from "../../src/crawler/css-urls.ts";

/**
 * The URLs a stylesheet makes a browser fetch, read from CSS Syntax tokens: the traps are strings, escapes and
 * comments around and inside url(), a url( that never closes, and the places where a string is or is not a URL.
 */

const sheet = (css: string, cut = false): string[] => cssUrls(css, { source: "stylesheet", cut });

describe("url() in every form", () => {
  test("unquoted, quoted with either quote, with spaces inside the parentheses, in upper case", () => {
    expect(sheet(`a{b:url(u.png);c:url("d.png");d:url('s.png');e:url(  sp.png  );f:url( "qs.png" );g:URL(UP.png)}`)).toEqual([
      "u.png",
      "d.png",
      "s.png",
      "sp.png",
      "qs.png",
      "UP.png",
    ]);
  });

  test("escapes are resolved: a hex escape, an escaped quote, an escaped space, an escaped function name", () => {
    expect(sheet(String.raw`a{b:url(a\29 b.png);c:url("q\"x.png");d:url(sp\ ace.png);e:\75 rl(esc.png);f:url('caf\e9.png')}`)).toEqual([
      "a)b.png",
      'q"x.png',
      "sp ace.png",
      "esc.png",
      "café.png",
    ]);
  });

  test("comments around url() hide nothing; a comment hides its url(); inside an unquoted url() /* */ is part of the URL", () => {
    expect(sheet(`/* url(hidden.png) */ a{/*x*/b:/*y*/url(/*in*/x.png)/*z*/} /* a{b:url(also-hidden.png)} */`)).toEqual(["/*in*/x.png"]);
  });

  test("a url() inside a string is text, not a URL", () => {
    expect(sheet(`a{content:"url(no.png)"} b:after{content:'x url(no2.png)'}`)).toEqual([]);
  });

  test("a url( that never closes: spaces inside make a bad URL that swallows up to the next ), and the rules after it count", () => {
    const css = `.x{background:url(before.png)} .y{background:url(never closed.png; } .z{background:url(swallowed.png)} .w{background:url(after.png)}`;
    expect(sheet(css)).toEqual(["before.png", "after.png"]);
  });

  test("a url( still open at the end of a whole sheet is a URL (CSS Syntax), but not at the end of a sheet cut at a size limit", () => {
    expect(sheet(`.a{background:url(end.png`)).toEqual(["end.png"]);
    expect(sheet(`.a{background:url(end.png`, true)).toEqual([]);
    expect(sheet(`.a{background:url("end-q.png`, true)).toEqual([]);
    expect(sheet(`.a{background:url(whole.png)}`, true)).toEqual(["whole.png"]);
  });

  test("a quoted url( whose string breaks at a newline is a bad string: no URL, and the next rule counts", () => {
    expect(sheet(`a{b:url("unclosed\n)} c{d:url(ok.png)}`)).toEqual(["ok.png"]);
  });

  test("data: URLs, fragment-only references and empty url() ask for nothing", () => {
    expect(sheet(`a{b:url(data:image/png;base64,AAAA);c:url("DATA:image/svg+xml,<svg/>");filter:url(#f);d:url();e:url("");f:url( )}`)).toEqual([]);
  });

  test("src() with a string is a URL like url(); without one it is nothing, and what follows it keeps its meaning", () => {
    expect(sheet(`a{background:src("s.png")}`)).toEqual(["s.png"]);
    expect(sheet(`a{b:src(x)} c{d:src(} e{content:"not-a-url";f:url(ok.png)}`)).toEqual(["ok.png"]);
  });
});

describe("@import", () => {
  test("as a string, as url(), with media queries, layers and supports()", () => {
    const css = `@import "a.css"; @import 'b.css' screen; @import url(c.css) print and (min-width: 1px);
      @import url("d.css") layer(base) supports(display: grid) screen; @import url( 'e.css' );`;
    expect(sheet(css)).toEqual(["a.css", "b.css", "c.css", "d.css", "e.css"]);
  });

  test("an @import inside a block is ignored, as browsers ignore it; other strings after an @import are not URLs", () => {
    expect(sheet(`@media print { @import "no.css"; a{b:url(yes.png)} } @import "x.css" "not-a-url";`)).toEqual(["yes.png", "x.css"]);
  });

  test("@namespace names a namespace, it is never fetched", () => {
    expect(sheet(`@namespace svg url(http://www.w3.org/2000/svg); @namespace "http://www.w3.org/1999/xhtml"; a{b:url(ok.png)}`)).toEqual(["ok.png"]);
  });
});

describe("@font-face src lists and image-set()", () => {
  test("every url() of a src list counts; format() and local() strings do not", () => {
    const css = `@font-face{font-family:X;src:url(x.eot?#iefix) format("embedded-opentype"), url("x.woff2") format("woff2"),
      url(x.woff) format('woff'), local("X Sans"), local(XSans)}`;
    expect(sheet(css)).toEqual(["x.eot?#iefix", "x.woff2", "x.woff"]);
  });

  test("the bare strings of image-set() and -webkit-image-set() are URLs, type() strings are not", () => {
    const css = `a{background-image:image-set("i1.png" 1x, url(i2.png) 2x, "i3.avif" type("image/avif"))}
      b{background-image:-webkit-image-set("w1.png" 1x, "w2.png" 2x)} c{content:"not-a-url"}`;
    expect(sheet(css)).toEqual(["i1.png", "i2.png", "i3.avif", "w1.png", "w2.png"]);
  });

  test("an image-set() left open does not make the strings of the next rule URLs", () => {
    expect(sheet(`a{b:image-set("x.png" 1x} c{content:"hello"}`)).toEqual(["x.png"]);
  });
});

describe("style attribute declarations", () => {
  test("url() and image-set() count; an at-rule there is not CSS a browser applies", () => {
    expect(cssUrls(`background:url(x.png); @import "no.css"; mask-image:image-set("m.png" 1x)`, { source: "declarations" })).toEqual(["x.png", "m.png"]);
  });
});

test("hostile input stays linear: 2 MB of nested parentheses and unclosed strings end quickly with nothing found", () => {
  const started = performance.now();
  expect(sheet("(".repeat(1_000_000) + "'".repeat(1_000_000))).toEqual([]);
  expect(performance.now() - started).toBeLessThan(4_000);
});

import { expect, test } from "bun:test";
import { charsetRuleLabel, decodeCss, isCssContentType } from "../../src/crawler/css-decode.ts";

/** Stylesheet bytes to text by CSS Syntax's order: BOM, then the Content-Type charset, then @charset, then UTF-8. */

const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

test("an @charset rule at the very start names the encoding", () => {
  const body = latin1(`@charset "iso-8859-1";\na{b:url(caf\xe9.png)}`);
  expect(charsetRuleLabel(body)).toBe("iso-8859-1");
  expect(decodeCss(body, "text/css")).toContain("url(café.png)");
});

test("the Content-Type charset wins over @charset, and a BOM wins over both", () => {
  const body = latin1(`@charset "utf-8";\na{b:url(caf\xe9.png)}`);
  expect(decodeCss(body, "text/css; charset=windows-1252")).toContain("url(café.png)");
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("a{b:url(café.png)}")]);
  expect(decodeCss(bom, "text/css; charset=iso-8859-1")).toBe("a{b:url(café.png)}");
});

test("only the exact form counts (lowercase, one space, double quotes); a UTF-16 label reads as UTF-8", () => {
  expect(charsetRuleLabel(latin1(`@CHARSET "iso-8859-1";`))).toBeNull();
  expect(charsetRuleLabel(latin1(`@charset 'iso-8859-1';`))).toBeNull();
  expect(charsetRuleLabel(latin1(` @charset "iso-8859-1";`))).toBeNull();
  expect(charsetRuleLabel(latin1(`@charset "iso-8859-1"`))).toBeNull();
  expect(charsetRuleLabel(latin1(`@charset "utf-16le";`))).toBe("utf-8");
  expect(charsetRuleLabel(latin1(`@charset "${"x".repeat(2000)}";`))).toBeNull();
});

test("no label, or an unknown one: UTF-8, and bad bytes become U+FFFD", () => {
  expect(decodeCss(new TextEncoder().encode("a{b:url(café.png)}"), "text/css")).toBe("a{b:url(café.png)}");
  expect(decodeCss(latin1(`@charset "no-such-encoding";a{b:url(x\xff.png)}`), "text/css")).toContain("x\ufffd.png");
});

test("text/css is a stylesheet, with parameters and in any case; other types are not", () => {
  expect(isCssContentType("text/css")).toBe(true);
  expect(isCssContentType("Text/CSS; charset=utf-8")).toBe(true);
  expect(isCssContentType("text/plain")).toBe(false);
  expect(isCssContentType(undefined)).toBe(false);
});

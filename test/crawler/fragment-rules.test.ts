import { describe, expect, test } from "bun:test";
import { createExtractor } from "../../src/crawler/extract.ts";
import { alwaysValid, checkable, fragmentFound, fragmentRecorder, judgeFragments, MAX_FRAGMENT_LENGTH, MAX_FRAGMENTS_PER_LINK, rememberFragment } from "../../src/crawler/fragments.ts";
import { MAX_ID_LENGTH, MAX_PAGE_ID_CHARS, MAX_PAGE_IDS } from "../../src/crawler/page-ids.ts";

/** The ids the extractor collects from `html`. */
function idsOf(html: string, cut = false) {
  const extractor = createExtractor("https://site.example/p", { collectIds: true });
  extractor.write(html);
  extractor.end();
  return extractor.ids(cut)!;
}

describe("which ids a page has", () => {
  test("every element's id and every <a name>, case kept; other names are not targets", () => {
    const { ids, complete } = idsOf(`<h1 id="Intro">x</h1><a name="old-style">y</a><input name="q"><div ID="upper">z</div><svg><g id="in-svg"/></svg>`);
    expect(ids.sort()).toEqual(["Intro", "in-svg", "old-style", "upper"]);
    expect(complete).toBe(true);
  });

  test("ids inside <template> do not count: its content is not part of the document a fragment scrolls", () => {
    expect(idsOf(`<template><p id="t"></p></template><p id="after"></p>`).ids).toEqual(["after"]);
  });

  test("an extractor not asked for ids gives none", () => {
    const extractor = createExtractor("https://site.example/p");
    extractor.write(`<p id="x">`);
    extractor.end();
    expect(extractor.ids(false)).toBeNull();
  });

  test("bounded: past the count, length or size caps the ids are incomplete, never unbounded", () => {
    const many = idsOf(Array.from({ length: MAX_PAGE_IDS + 5 }, (_, i) => `<i id="i${i}"></i>`).join(""));
    expect(many.ids.length).toBe(MAX_PAGE_IDS);
    expect(many.complete).toBe(false);
    const long = idsOf(`<p id="ok"></p><p id="${"x".repeat(MAX_ID_LENGTH + 1)}"></p>`);
    expect(long).toEqual({ ids: ["ok"], complete: false });
    const big = idsOf(Array.from({ length: 200 }, (_, i) => `<p id="${String(i).padStart(MAX_ID_LENGTH, "0")}"></p>`).join(""));
    expect(big.ids.length).toBe(Math.floor(MAX_PAGE_ID_CHARS / MAX_ID_LENGTH));
    expect(big.complete).toBe(false);
  });

  test("a page read in part has incomplete ids", () => {
    expect(idsOf(`<p id="a">`, true)).toEqual({ ids: ["a"], complete: false });
  });
});

describe("whether a fragment is found (HTML's find a potential indicated element)", () => {
  const ids = new Set(["Intro", "café", "50%", "a b", "%41"]);
  test.each([
    ["", true, "# alone is the top of the page"],
    ["top", true, "#top is the top of the page"],
    ["ToP", true, "top in any ASCII case"],
    ["Intro", true, "exact id"],
    ["intro", false, "ids are case-sensitive"],
    ["INTRO", false, "ids are case-sensitive"],
    ["caf%C3%A9", true, "percent-decoded as UTF-8"],
    ["50%25", true, "a percent sign in the id"],
    ["a%20b", true, "a space in the id"],
    ["%41", true, "the raw form is tried first"],
    ["A", false, "…and the decoded one only after it"],
    ["caf%E9", false, "invalid UTF-8 decodes to U+FFFD, which is no id here"],
    ["%zz", false, "a broken escape stays as written"],
  ])("%p → %p (%s)", (fragment, found) => {
    expect(fragmentFound(fragment, ids)).toBe(found);
  });

  test("#top is valid even when no element has that id; an element with id=top is found too", () => {
    expect(alwaysValid("top") && alwaysValid("") && !alwaysValid("tops")).toBe(true);
    expect(fragmentFound("top", new Set(["top"]))).toBe(true);
  });
});

describe("the verdict on one link's fragments", () => {
  const ids = new Set(["a", "b"]);
  test("all found: nothing to say", () => {
    expect(judgeFragments(["a", "b"], ids, true)).toEqual({ kind: "ok" });
  });
  test("missing on a page read in full: broken, every missing one named", () => {
    expect(judgeFragments(["a", "x"], ids, true)).toEqual({ kind: "broken", error: "fragment #x not found" });
    expect(judgeFragments(["x", "y", "a"], ids, true)).toEqual({ kind: "broken", error: "fragments #x, #y not found" });
  });
  test("the error names five at most, each cut to 100 characters", () => {
    const missing = ["1", "2", "3", "4", "5", "6", "7", "z".repeat(150)];
    const verdict = judgeFragments(missing, ids, true);
    expect(verdict).toEqual({ kind: "broken", error: "fragments #1, #2, #3, #4, #5 and 3 more not found" });
    expect(judgeFragments(["z".repeat(150)], ids, true)).toEqual({ kind: "broken", error: `fragment #${"z".repeat(100)}… not found` });
  });
  test("missing on a page read in part: a warning, not broken", () => {
    const verdict = judgeFragments(["x"], ids, false);
    expect(verdict.kind).toBe("unproven");
  });
});

describe("which fragments a Link remembers", () => {
  test("distinct, bounded per link; too long to name a kept id: not checked", () => {
    let list: string[] | undefined;
    for (let i = 0; i < MAX_FRAGMENTS_PER_LINK + 10; i++) list = rememberFragment(list, `f${i % (MAX_FRAGMENTS_PER_LINK + 5)}`);
    expect(list!.length).toBe(MAX_FRAGMENTS_PER_LINK);
    expect(new Set(list).size).toBe(MAX_FRAGMENTS_PER_LINK);
    expect(checkable("x".repeat(MAX_FRAGMENT_LENGTH))).toBe(true);
    expect(checkable("x".repeat(MAX_FRAGMENT_LENGTH + 1))).toBe(false);
  });

  test("only anchors to internal pages; a link within the page that finds its id is settled at once", () => {
    const page = { url: "https://site.example/p", ids: { ids: ["here"], complete: true } };
    const record = fragmentRecorder(page);
    const found = (internal: boolean) => ({ internal }) as { internal: boolean; fragments?: string[] };
    const self = found(true);
    record(self, { url: page.url, kind: "anchor", fragment: "here" });
    record(self, { url: page.url, kind: "anchor", fragment: "top" });
    expect(self.fragments).toBeUndefined();
    record(self, { url: page.url, kind: "anchor", fragment: "gone" });
    expect(self.fragments).toEqual(["gone"]);
    const external = found(false);
    record(external, { url: "https://other.example/", kind: "anchor", fragment: "x" });
    expect(external.fragments).toBeUndefined();
    const image = found(true);
    record(image, { url: "https://site.example/sprite.svg", kind: "image", fragment: "icon" });
    expect(image.fragments).toBeUndefined();
  });
});

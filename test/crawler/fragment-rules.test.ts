import { describe, expect, test } from "bun:test";
import { createExtractor } from "../../src/crawler/extract.ts";
import { alwaysValid, fragmentFound, fragmentsToJudge, judgeFragments, MAX_FRAGMENT_LENGTH, recordedFragment } from "../../src/crawler/fragments.ts";
import { hashesFromBytes, hashesToBytes, idHash, IdHashes, MAX_PAGE_IDS } from "../../src/crawler/page-ids.ts";

/** The ids the extractor collects from `html`. */
function idsOf(html: string, cut = false) {
  const extractor = createExtractor("https://site.example/p", { collectIds: true });
  extractor.write(html);
  extractor.end();
  return extractor.ids(cut)!;
}

/** The sorted hashes of `ids`, as a page's are kept. */
const hashesOf = (ids: string[]) => new BigUint64Array(ids.map(idHash)).sort();

describe("which ids a page has", () => {
  test("every element's id and every <a name>, case kept; other names are not targets", () => {
    const page = idsOf(`<h1 id="Intro">x</h1><a name="old-style">y</a><input name="q"><div ID="upper">z</div><svg><g id="in-svg"/></svg>`);
    expect(page).toEqual({ hashes: hashesOf(["Intro", "in-svg", "old-style", "upper"]), gap: null });
    const ids = new IdHashes(page.hashes);
    expect(["Intro", "in-svg", "old-style", "upper"].every((id) => ids.has(id))).toBe(true);
    expect(["intro", "q", "", "Upper"].some((id) => ids.has(id))).toBe(false);
  });

  test("ids inside <template> do not count: its content is not part of the document a fragment scrolls", () => {
    expect(idsOf(`<template><p id="t"></p></template><p id="after"></p>`).hashes).toEqual(hashesOf(["after"]));
  });

  test("an extractor not asked for ids gives none", () => {
    const extractor = createExtractor("https://site.example/p");
    extractor.write(`<p id="x">`);
    extractor.end();
    expect(extractor.ids(false)).toBeNull();
  });

  test("an ordinary big page keeps every id: 2,500 ids of ~40 characters (96 KiB of id text) and ids of 5,000 characters", () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => `section-${i}-${"x".repeat(30)}`);
    const long = ["L".repeat(1_025), "M".repeat(5_000)];
    const page = idsOf([...ids, ...long].map((id) => `<h2 id="${id}">t</h2><p>${"text ".repeat(8)}</p>`).join(""));
    expect(page.gap).toBeNull();
    expect(page.hashes.length).toBe(2_502);
    const found = new IdHashes(page.hashes);
    expect([...ids, ...long].every((id) => found.has(id))).toBe(true);
    expect(found.has("L".repeat(1_024))).toBe(false);
  });

  test("an id repeated does not use up the bound: each is kept once", () => {
    const page = idsOf(`<p id="a"></p><p id="b"></p>`.repeat(MAX_PAGE_IDS));
    expect(page).toEqual({ hashes: hashesOf(["a", "b"]), gap: null });
  });

  test("bounded: past MAX_PAGE_IDS distinct ids the page's ids have a gap, never unbounded", () => {
    const many = idsOf(Array.from({ length: MAX_PAGE_IDS + 5 }, (_, i) => `<i id="i${i}"></i>`).join(""));
    expect(many.hashes.length).toBe(MAX_PAGE_IDS);
    expect(many.gap).toBe("too_many_ids");
    expect(new IdHashes(many.hashes).has("i0")).toBe(true);
  });

  test("a page read in part has a gap saying so", () => {
    expect(idsOf(`<p id="a">`, true)).toEqual({ hashes: hashesOf(["a"]), gap: "body_cut" });
  });

  test("the stored bytes give the same hashes back, from any offset", () => {
    const hashes = hashesOf(["x", "y", "z"]);
    const bytes = hashesToBytes(hashes);
    const unaligned = new Uint8Array(bytes.length + 3);
    unaligned.set(bytes, 3);
    expect(hashesFromBytes(unaligned.subarray(3))).toEqual(hashes);
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
    // The same through the hashes a page's ids are kept as.
    expect(fragmentFound(fragment, new IdHashes(hashesOf([...ids])))).toBe(found);
  });

  test("#top is valid even when no element has that id; an element with id=top is found too", () => {
    expect(alwaysValid("top") && alwaysValid("") && !alwaysValid("tops")).toBe(true);
    expect(fragmentFound("top", new Set(["top"]))).toBe(true);
  });
});

describe("the verdict on one link's fragment", () => {
  const ids = new Set(["a", "b"]);
  test("found: nothing to say", () => {
    expect(judgeFragments(["a"], ids, null)).toEqual({ kind: "ok" });
    expect(judgeFragments(["top"], ids, "body_cut")).toEqual({ kind: "ok" });
  });
  test("missing on a page whose ids were all kept: broken, named", () => {
    expect(judgeFragments(["x"], ids, null)).toEqual({ kind: "broken", error: "fragment #x not found" });
    // A link stored by an older release asked several.
    expect(judgeFragments(["x", "y", "a"], ids, null)).toEqual({ kind: "broken", error: "fragments #x, #y not found" });
  });
  test("the error names five at most, each cut to 100 characters", () => {
    const missing = ["1", "2", "3", "4", "5", "6", "7", "z".repeat(150)];
    expect(judgeFragments(missing, ids, null)).toEqual({ kind: "broken", error: "fragments #1, #2, #3, #4, #5 and 3 more not found" });
    expect(judgeFragments(["z".repeat(150)], ids, null)).toEqual({ kind: "broken", error: `fragment #${"z".repeat(100)}… not found` });
  });
  test("missing on a page with a gap: a warning saying which gap, not broken", () => {
    expect(judgeFragments(["x"], ids, "body_cut")).toMatchObject({ kind: "unproven", gap: "body_cut" });
    const many = judgeFragments(["x"], ids, "too_many_ids");
    expect(many).toMatchObject({ kind: "unproven", gap: "too_many_ids" });
    expect(many.kind === "unproven" && many.warning).toStartWith("fragment #x not found among the 100,000 ids kept of the page");
  });
  test("a fragment too long to check is recorded cut and gets a warning, never a verdict", () => {
    const exact = "f".repeat(MAX_FRAGMENT_LENGTH);
    expect(recordedFragment(exact)).toBe(exact);
    expect(judgeFragments([exact], new Set([exact]), null)).toEqual({ kind: "ok" });
    const long = recordedFragment("f".repeat(MAX_FRAGMENT_LENGTH + 10));
    expect(long).toEndWith(`…[${MAX_FRAGMENT_LENGTH + 10} characters]`);
    expect(judgeFragments([long], ids, null)).toMatchObject({ kind: "unproven", gap: "long_fragment" });
  });
});

describe("which fragments wait for a verdict", () => {
  test("only anchors to internal pages; a link within the page that finds its id is settled at once", () => {
    const page = { url: "https://site.example/p", ids: { hashes: hashesOf(["here"]), gap: null } };
    const judged = fragmentsToJudge(page);
    const self = { url: page.url, internal: true, kind: "anchor" };
    expect(judged(self, "here")).toBe(false);
    expect(judged(self, "top")).toBe(false);
    expect(judged(self, "gone")).toBe(true);
    expect(judged({ url: "https://site.example/q", internal: true, kind: "anchor" }, "here")).toBe(true);
    expect(judged({ url: "https://other.example/", internal: false, kind: "anchor" }, "x")).toBe(false);
    expect(judged({ url: "https://site.example/sprite.svg", internal: true, kind: "image" }, "icon")).toBe(false);
  });
});

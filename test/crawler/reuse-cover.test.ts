import { expect, test } from "bun:test";
import { CRAWL_OPTION_ROWS } from "../../src/core/crawl-option-table.ts";
import { noIgnoreRules } from "../../src/core/ignore-rules.ts";
import { withDefaultOptions } from "../../src/core/stored-options.ts";
import { previousCovers, type LinkGating } from "../../src/crawler/reuse-cover.ts";

const plain = (options: Parameters<typeof withDefaultOptions>[0] = {}, rules = noIgnoreRules()): LinkGating => ({
  options: withDefaultOptions(options),
  ignoreRules: rules,
});

test("the same options and rules cover", () => {
  expect(previousCovers(plain(), plain())).toBe(true);
  const all = { scan_images: true, scan_scripts: true, scan_stylesheets: true, scan_media: true, follow_external: true };
  expect(previousCovers(plain(all, { exclude: ["/private/*"], mute: ["/old"] }), plain(all, { exclude: ["/private/*"], mute: ["/old"] }))).toBe(true);
});

test("every option that gates a page's links must be the same, on or off", () => {
  for (const [name] of CRAWL_OPTION_ROWS) {
    if (name === "use_sitemap" || name === "soft_404_broken") continue;
    // More on there does not cover: the first occurrence per target may have been a kind this crawl drops.
    expect(previousCovers(plain({ [name]: true }), plain())).toBe(false);
    expect(previousCovers(plain(), plain({ [name]: true }))).toBe(false);
  }
});

test("options that act after the page's links are taken may differ", () => {
  expect(previousCovers(plain({ use_sitemap: true }), plain())).toBe(true);
  expect(previousCovers(plain(), plain({ soft_404_broken: true }))).toBe(true);
});

test("check_fragments on both covers", () => {
  expect(previousCovers(plain({ check_fragments: true }), plain({ check_fragments: true }))).toBe(true);
});

test("ignore rules must be the same lists in the same order", () => {
  expect(previousCovers(plain({}, { exclude: ["/a"], mute: [] }), plain())).toBe(false);
  expect(previousCovers(plain(), plain({}, { exclude: [], mute: ["/a"] }))).toBe(false);
  expect(previousCovers(plain({}, { exclude: [], mute: ["/a", "/b"] }), plain({}, { exclude: [], mute: ["/b", "/a"] }))).toBe(false);
});

import { expect, test } from "bun:test";
import {
  describeWarning,
  describeWarnings,
  MAX_SAMPLE_CHARS,
  MAX_WARNING_BYTES,
  MAX_WARNING_ENTRIES,
  MAX_WARNING_SAMPLES,
  mergeWarnings,
  WARNING_CAUSES,
  WarningTally,
} from "../../src/core/crawl-warnings.ts";

/**
 * The warning budget: findings are aggregated per cause as they come (a count and the first samples), plain text
 * is one entry per distinct text, and whatever is added, the entries stay within MAX_WARNING_ENTRIES (+ the
 * `omitted` one) and MAX_WARNING_BYTES of samples; merging stored entries with new findings is the same as
 * having added them all to one tally.
 */

const bytes = (entries: unknown) => new TextEncoder().encode(JSON.stringify(entries)).length;

test("2.45 million findings of one cause are one entry with a count and five samples", () => {
  const tally = new WarningTally();
  for (let i = 0; i < 2_450_000; i++)
    tally.add({ cause: "sitemap_off_site", sample: `https://evil.example/${i}.xml in https://site.example/index-${i % 50}.xml` });
  const entries = tally.entries();
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({ cause: "sitemap_off_site", count: 2_450_000 });
  expect(entries[0]!.samples).toHaveLength(MAX_WARNING_SAMPLES);
  expect(describeWarning(entries[0]!)).toBe(
    "2450000 sitemap names point off the crawled site; not read (first 5: " +
      [0, 1, 2, 3, 4].map((i) => `https://evil.example/${i}.xml in https://site.example/index-${i}.xml`).join(", ") +
      ")",
  );
  expect(bytes(entries)).toBeLessThan(1024);
});

test("plain text is an `other` warning, once per distinct text; typed causes keep their first-found order", () => {
  const tally = new WarningTally();
  tally.addAll(["the site answers 200", { cause: "sitemap_empty", sample: "https://a/s.xml" }, "the site answers 200", { cause: "truncated" }]);
  expect(tally.entries()).toEqual([
    { cause: "other", message: "the site answers 200", count: 2, samples: [] },
    { cause: "sitemap_empty", message: "", count: 1, samples: ["https://a/s.xml"] },
    { cause: "truncated", message: "", count: 1, samples: [] },
  ]);
  expect(describeWarnings(tally.entries())).toEqual([
    "the site answers 200",
    "1 sitemap lists no entries (https://a/s.xml)",
    "max_pages or max_depth left pages unparsed: their links were not checked",
  ]);
});

test("past MAX_WARNING_ENTRIES, new causes are counted in one `omitted` entry", () => {
  const tally = new WarningTally();
  for (let i = 0; i < 100; i++) tally.add(`distinct warning ${i}`);
  const entries = tally.entries();
  expect(entries).toHaveLength(MAX_WARNING_ENTRIES + 1);
  expect(entries.at(-1)).toEqual({ cause: "omitted", message: "", count: 100 - MAX_WARNING_ENTRIES, samples: [] });
  expect(describeWarning(entries.at(-1)!)).toStartWith(`${100 - MAX_WARNING_ENTRIES} further warnings were not kept`);
});

test("samples and texts are cut to MAX_SAMPLE_CHARS, and all of them stay within MAX_WARNING_BYTES", () => {
  const tally = new WarningTally();
  const long = "é".repeat(10_000);
  for (const cause of WARNING_CAUSES) {
    if (cause === "other" || cause === "omitted") continue;
    for (let i = 0; i < 10; i++) tally.add({ cause, sample: `${i}${long}` });
  }
  for (let i = 0; i < 40; i++) tally.add(`${i}${long}`);
  const entries = tally.entries();
  const kept = entries.flatMap((entry) => [entry.message, ...entry.samples]);
  expect(Math.max(...kept.map((text) => text.length))).toBe(MAX_SAMPLE_CHARS);
  expect(new TextEncoder().encode(kept.join("")).length).toBeLessThanOrEqual(MAX_WARNING_BYTES);
  expect(entries.length).toBeLessThanOrEqual(MAX_WARNING_ENTRIES + 1);
  // Counts are never lost to the budget: each finding is counted in its cause or in `omitted`.
  expect(entries.reduce((sum, entry) => sum + entry.count, 0)).toBe((WARNING_CAUSES.length - 2) * 10 + 40);
  // What people read stays small too.
  expect(bytes(describeWarnings(entries))).toBeLessThan(3 * MAX_WARNING_BYTES);
});

test("merging stored entries with new findings equals adding everything to one tally", () => {
  const first = ["a", { cause: "sitemap_cut", sample: "https://a/1.xml" }, { cause: "pages_cut", count: 3 }] as const;
  const second = [{ cause: "sitemap_cut", sample: "https://a/2.xml" }, "a", "b", { cause: "pages_cut", count: 2 }] as const;
  const stored = mergeWarnings([], first);
  const whole = new WarningTally();
  whole.addAll([...first, ...second]);
  expect(mergeWarnings(stored, second)).toEqual(whole.entries());
  const other = new WarningTally();
  other.addAll(second);
  expect(mergeWarnings(stored, other)).toEqual(whole.entries());
});

test("every cause reads as a sentence, singular and plural", () => {
  for (const cause of WARNING_CAUSES) {
    for (const count of [1, 2]) {
      const text = describeWarning({ cause, message: cause === "other" ? "text" : "", count, samples: [] });
      expect(text.length).toBeGreaterThan(3);
      expect(text).not.toContain("undefined");
    }
  }
  expect(describeWarning({ cause: "no_links_in_scope", message: "", count: 1, samples: [] })).toStartWith(
    "no links to check: the page crawled has no link in scope",
  );
  expect(describeWarning({ cause: "pages_cut", message: "", count: 2, samples: [] })).toStartWith("2 pages were cut short by crawler.max_body_bytes");
});

import { expect, test } from "bun:test";
import { FingerprintReader, fingerprintPage, samePage, similarity, urlNeedles } from "../../src/crawler/page-fingerprint.ts";

/**
 * The page fingerprint behind soft-404 detection: visible text only, the asked URL cut out, equal titles and 90 %
 * of shared word 3-grams to match; and bounded on hostile pages (one huge text node, a title that never closes).
 */

const page = (title: string, body: string) =>
  `<html><head><title>${title}</title><style>.x{}</style><script>var a = "ignored words here";</script></head><body>${body}</body></html>`;
const TEMPLATE = "<nav>Home Docs Blog About Contact</nav><footer>Copyright Example Corporation all rights reserved</footer>";

test("a not-found page that repeats the asked path matches itself under another path", () => {
  const a = fingerprintPage(
    page("Not found", `${TEMPLATE}<p>The page /old/a.html was not found on this server, sorry.</p>`),
    urlNeedles("https://s.example/old/a.html"),
  );
  const b = fingerprintPage(
    page("Not found", `${TEMPLATE}<p>The page /x/y/zz.html was not found on this server, sorry.</p>`),
    urlNeedles("https://s.example/x/y/zz.html"),
  );
  expect(samePage(a, b)).toBe(true);
});

test("a thin page on the same template does not match: other title, and other text", () => {
  const notFound = fingerprintPage(page("Not found", `${TEMPLATE}<p>This page was not found.</p>`), []);
  expect(samePage(notFound, fingerprintPage(page("Contact", `${TEMPLATE}<p>This page was not found.</p>`), []))).toBe(false);
  const sameTitle = fingerprintPage(page("Not found", `${TEMPLATE}<p>Write to us at the office, open from nine to five on weekdays.</p>`), []);
  expect(similarity(notFound.shingles, sameTitle.shingles)).toBeLessThan(0.9);
  expect(samePage(notFound, sameTitle)).toBe(false);
});

test("script and style text is not visible text", () => {
  expect(fingerprintPage(page("T", "<p>one two three</p>"), []).shingles).toEqual(fingerprintPage("<title>T</title><p>one two three</p>", []).shingles);
});

test("hostile pages are read only up to the bounds", () => {
  const huge = `<title>T</title><p>${"word ".repeat(2_000_000)}</p>`; // 10 MB in one text node
  let started = performance.now();
  const fp = fingerprintPage(huge, []);
  expect(fp.shingles.size).toBeLessThanOrEqual(2); // "word word word", and one cut at the text bound
  expect(performance.now() - started).toBeLessThan(1_000);
  started = performance.now();
  const unclosed = fingerprintPage(`<title>${"t ".repeat(3_000_000)}`, []);
  expect(unclosed.title.length).toBeLessThanOrEqual(1024);
  expect(performance.now() - started).toBeLessThan(2_000);
  // A title that differs stops the reading at once.
  started = performance.now();
  expect(fingerprintPage(`<title>Other</title><p>${"x y z ".repeat(1_000_000)}</p>`, [], "not found").shingles.size).toBe(0);
  expect(performance.now() - started).toBeLessThan(200);
});

test("a page fed in pieces gives the whole page's fingerprint, and stops taking pieces once it is known", () => {
  const html = page("Not found", `${TEMPLATE}<p>${Array.from({ length: 500 }, (_, i) => `word${i % 37} caf\u00e9 &amp; more`).join(" ")}</p>`);
  const needles = urlNeedles("https://s.example/missing");
  for (const size of [1, 7, 100, 5000]) {
    const reader = new FingerprintReader(needles);
    for (let offset = 0; offset < html.length; offset += size) reader.write(html.slice(offset, offset + size));
    expect(reader.result()).toEqual(fingerprintPage(html, needles));
  }
  const mismatched = new FingerprintReader([], "not found");
  mismatched.write("<title>Other</title><p>");
  expect(mismatched.done).toBe(true);
  const long = new FingerprintReader([]);
  // Bounded: at most 10,000 pieces; the reader is done long before (its word bound is 4,096).
  for (let i = 0; i < 10_000 && !long.done; i++) long.write("many words in a row ");
  expect(long.done).toBe(true);
});

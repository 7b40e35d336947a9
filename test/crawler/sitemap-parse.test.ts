import { expect, test } from "bun:test";
import { join } from "node:path";
import { parseRobots } from "../../src/crawler/robots.ts";
import { ROBOTS_MAX_SITEMAPS } from "../../src/crawler/robots-parse.ts";
import { parseSitemap } from "../../src/crawler/sitemap-parse.ts";
import { SITEMAP_MAX_DEPTH } from "../../src/core/sitemap-limits.ts";

/**
 * The sitemap tokenizer on the shapes real sitemaps take and the ways they break: namespace prefixes, entities,
 * CDATA, extension elements that carry a `<loc>` of their own, a file that breaks off, the URL cap; and the
 * Sitemap lines of robots.txt, which belong to no group.
 */

const bytes = (text: string) => new TextEncoder().encode(text);

test("a URL set: <loc> under <url> only, trimmed, entities decoded, prefixes ignored", () => {
  const parsed = parseSitemap(
    bytes(`<?xml version="1.0"?><sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="x">
      <sm:url><sm:loc>
        https://a.example/?x=1&amp;y=2
      </sm:loc><image:image><image:loc>https://a.example/pic.png</image:loc></image:image></sm:url>
      <sm:url><sm:loc><![CDATA[https://a.example/cdata]]></sm:loc></sm:url>
      <sm:url><sm:loc></sm:loc></sm:url>
      <loc>https://a.example/stray</loc>
    </sm:urlset>`),
    10,
  );
  expect(parsed).toEqual({ kind: "urlset", locs: ["https://a.example/?x=1&y=2", "https://a.example/cdata"], capped: false });
});

test("an index lists sitemaps; anything else is unknown", () => {
  expect(parseSitemap(bytes("<sitemapindex><sitemap><loc>https://a.example/s1.xml</loc></sitemap></sitemapindex>"), 10)).toEqual({
    kind: "sitemapindex",
    locs: ["https://a.example/s1.xml"],
    capped: false,
  });
  expect(parseSitemap(bytes("<html><body><url><loc>https://a.example/</loc></url></body></html>"), 10).kind).toBe("unknown");
  expect(parseSitemap(bytes("\u0000\u0001 garbage <<< >>>"), 10)).toEqual({ kind: "unknown", locs: [], capped: false });
});

test("a file that breaks off keeps the entries closed before the break, not the half URL", () => {
  const parsed = parseSitemap(bytes("<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</url><url><loc>https://a.exa"), 10);
  expect(parsed.locs).toEqual(["https://a.example/1"]);
});

test("at most maxLocs URLs are kept, and the cap is reported", () => {
  const many = `<urlset>${Array.from({ length: 30 }, (_, i) => `<url><loc>https://a.example/${i}</loc></url>`).join("")}</urlset>`;
  const parsed = parseSitemap(bytes(many), 25);
  expect(parsed.locs).toHaveLength(25);
  expect(parsed.locs.at(-1)).toBe("https://a.example/24");
  expect(parsed.capped).toBe(true);
  expect(parseSitemap(bytes(many), 30).capped).toBe(false);
});

test("robots.txt: Sitemap lines are kept in order, outside any group, bounded in number and length", () => {
  const rules = parseRobots(
    [
      "Sitemap: https://a.example/one.xml",
      "User-agent: *",
      "Disallow: /x",
      "sitemap:https://a.example/two.xml # a comment",
      `Sitemap: https://a.example/${"l".repeat(3000)}`,
      "Sitemap:",
      ...Array.from({ length: 60 }, (_, i) => `Sitemap: https://a.example/s${i}.xml`),
    ].join("\n"),
  );
  expect(rules.sitemaps?.slice(0, 3)).toEqual(["https://a.example/one.xml", "https://a.example/two.xml", "https://a.example/s0.xml"]);
  expect(rules.sitemaps).toHaveLength(ROBOTS_MAX_SITEMAPS);
  expect(rules.groups.get("*")).toHaveLength(1);
});

test("the text format: one URL per line; a line that is not a URL makes it no sitemap", () => {
  expect(parseSitemap(bytes("\uFEFFhttps://a.example/1\r\n\r\n  https://a.example/2  \nhttp://a.example/3"), 10)).toEqual({
    kind: "urlset",
    locs: ["https://a.example/1", "https://a.example/2", "http://a.example/3"],
    capped: false,
  });
  expect(parseSitemap(bytes("https://a.example/1\nhttps://a.example/2\nhttps://a.example/3"), 2)).toEqual({
    kind: "urlset",
    locs: ["https://a.example/1", "https://a.example/2"],
    capped: true,
  });
  expect(parseSitemap(bytes("https://a.example/1\nNot Found\n"), 10).kind).toBe("unknown");
  expect(parseSitemap(bytes("   \n"), 10).kind).toBe("unknown");
});

test("a sitemap of a million unclosed elements and stray end tags is read in moments, keeping what came before", () => {
  // htmlparser2 searches its open elements for each end tag: read whole, this 10 MB body took hours. Read in a
  // child process, so that a regression fails at the time limit instead of hanging the suite in synchronous code.
  const script = `
    import { parseSitemap } from ${JSON.stringify(join(import.meta.dir, "../../src/crawler/sitemap-parse.ts"))};
    const body = "<urlset><url><loc>http://example.com/a</loc></url>" + "<x>".repeat(1000000) + "</y>".repeat(1000000) + "</urlset>";
    console.log(JSON.stringify(parseSitemap(new TextEncoder().encode(body), 50000)));
  `;
  const child = Bun.spawnSync([process.execPath, "-e", script], { timeout: 20_000, stderr: "pipe" });
  expect({ exitCode: child.exitCode, signal: child.signalCode ?? null, stderr: child.stderr.toString() }).toEqual({ exitCode: 0, signal: null, stderr: "" });
  expect(JSON.parse(child.stdout.toString())).toEqual({ kind: "urlset", locs: ["http://example.com/a"], capped: false, stopped: "too_deep" });
}, 30_000);

test("markup nested deeper than a sitemap needs stops reading there, keeping what came before, and says so", () => {
  // Issue 38's sitemap: `</b>` under 250 open elements, 10.4 MB; 49 of them held a worker 268 s. Read in a child
  // process so that a regression fails at the time limit instead of hanging the suite.
  const script = `
    import { parseSitemap } from ${JSON.stringify(join(import.meta.dir, "../../src/crawler/sitemap-parse.ts"))};
    const body = "<urlset><url><loc>http://example.com/a</loc></url>" + "<a>".repeat(250) + "</b>".repeat(2600000);
    console.log(JSON.stringify(parseSitemap(new TextEncoder().encode(body), 50000)));
  `;
  const child = Bun.spawnSync([process.execPath, "-e", script], { timeout: 20_000, stderr: "pipe" });
  expect({ exitCode: child.exitCode, signal: child.signalCode ?? null, stderr: child.stderr.toString() }).toEqual({ exitCode: 0, signal: null, stderr: "" });
  expect(JSON.parse(child.stdout.toString())).toEqual({ kind: "urlset", locs: ["http://example.com/a"], capped: false, stopped: "too_deep" });
}, 30_000);

test(`a sitemap's own nesting (${SITEMAP_MAX_DEPTH} levels allowed) is read whole`, () => {
  const news = `<urlset><url><loc>https://a.example/n</loc><news:news><news:publication><news:name>N</news:name></news:publication></news:news></url></urlset>`;
  expect(parseSitemap(bytes(news), 10)).toEqual({ kind: "urlset", locs: ["https://a.example/n"], capped: false });
  const deepest = `<urlset><url><loc>https://a.example/1</loc>${"<x>".repeat(SITEMAP_MAX_DEPTH - 2)}${"</x>".repeat(SITEMAP_MAX_DEPTH - 2)}</url></urlset>`;
  expect(parseSitemap(bytes(deepest), 10).stopped).toBeUndefined();
});

test("the time budget cuts reading between slices, keeping the entries read before the cut", () => {
  const many = `<urlset>${Array.from({ length: 5_000 }, (_, i) => `<url><loc>https://a.example/${i}</loc></url>`).join("")}</urlset>`;
  expect(many.length).toBeGreaterThan(128 * 1024);
  let clock = 0;
  // Each reading of the clock is a second later: the budget of 1.5 s is spent after the first slice.
  const parsed = parseSitemap(bytes(many), 50_000, { ms: 1_500, now: () => (clock += 1_000) });
  expect(parsed.stopped).toBe("too_slow");
  expect(parsed.locs.length).toBeGreaterThan(0);
  expect(parsed.locs.length).toBeLessThan(5_000);
  expect(parsed.locs).toEqual(Array.from({ length: parsed.locs.length }, (_, i) => `https://a.example/${i}`));
});

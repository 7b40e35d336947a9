import { expect, test } from "bun:test";
import { type CheckReport, renderReport } from "../../src/services/report/report.ts";
import type { LinkView } from "../../src/services/crawl-view.ts";
import { withDefaultOptions } from "../../src/core/stored-options.ts";

/** The JSON report is written link by link; what it writes must still parse back to the whole report. */

const link = (n: number, broken: boolean): LinkView => ({
  url: `http://site.test/${n}`,
  source_url: "http://site.test/",
  status_code: broken ? 404 : 200,
  is_broken: broken,
  link_text: `line\n"${n}"`,
  kind: "anchor",
  final_url: null,
  error: null,
  warning: null,
  broken_since: broken ? "2026-01-01T00:00:00.000Z" : null,
});

function report(links: LinkView[]): CheckReport {
  return {
    url: "http://site.test/",
    options: withDefaultOptions({}),
    summary: {
      status: "completed",
      error: null,
      failure: null,
      warnings: [],
      pages_cut: 0,
      pages_crawled: 1,
      total_links: links.length,
      broken_links: 1,
      skipped_links: 0,
      truncated: false,
      duration_ms: 5,
      reported_links: links.length,
      reported_broken: links.filter((l) => l.is_broken).length,
    },
    links: () => [links],
    brokenLinks: () => [links.filter((link) => link.is_broken)],
  };
}

for (const links of [[], [link(1, false)], [link(1, false), link(2, true), link(3, false)]]) {
  test(`the streamed JSON report of ${links.length} links parses back to the report`, async () => {
    const r = report(links);
    const text = (await Array.fromAsync(renderReport(r, "json"))).join("");
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text)).toEqual({ url: r.url, options: r.options, summary: r.summary, links });
  });
}

test("the JSON report holds one link per line, each line a JSON object of its own", async () => {
  const links = [link(1, false), link(2, true), link(3, false)];
  const lines = (await Array.fromAsync(renderReport(report(links), "json"))).join("").split("\n");
  const linkLines = lines.filter((line) => line.startsWith("    {"));
  expect(linkLines.map((line) => JSON.parse(line.trim().replace(/,$/, "")))).toEqual(links);
});

test("CSV: a cell starting with a formula character, tab or carriage return is prefixed with a single quote", async () => {
  const risky: LinkView = { ...link(9, true), link_text: "\tcmd", error: "\r=1+1", warning: "@x", final_url: "-1" };
  const text = (await Array.fromAsync(renderReport(report([risky]), "csv"))).join("");
  const row = text.split("\r\n")[1]!;
  expect(row).toBe(`http://site.test/,http://site.test/9,404,true,anchor,'\tcmd,'-1,"'\r=1+1",'@x,2026-01-01T00:00:00.000Z`);
});

for (const links of [[], [link(1, false), link(2, true), link(3, false)]]) {
  test(`JSON lines of ${links.length} links: a typed object per line, links in order, warnings, the summary last`, async () => {
    const r = report(links);
    r.summary.warnings = ["first warning", 'a "quoted"\nsecond'];
    const text = (await Array.fromAsync(renderReport(r, "jsonl"))).join("");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text
      .slice(0, -1)
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      ...links.map((l) => ({ type: "link", ...l })),
      { type: "warning", message: "first warning" },
      { type: "warning", message: 'a "quoted"\nsecond' },
      { type: "summary", url: r.url, options: r.options, summary: r.summary },
    ]);
  });
}

test("every format writes a crawled site's control characters dropped and bidi controls as markers, even in text stored raw", async () => {
  const raw: LinkView = { ...link(7, true), link_text: "A\u0000B\u0001C\u202Egnp.exe\u007f\u0085\u200Fz", error: "err\u2066or", warning: "w\u0007arn" };
  const r = report([link(1, false), raw]);
  r.summary = { ...r.summary, error: "crawl \u202Aerror", warnings: ['sitemap "x\u202Ey\u0000" named in robots.txt'] };
  const unshown = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  for (const format of ["text", "json", "jsonl", "csv", "junit", "markdown"] as const) {
    const text = (await Array.fromAsync(renderReport(r, format))).join("");
    expect(text).not.toMatch(unshown);
    // Markdown backslash-escapes the marker's "+" (it renders as the marker).
    expect(text).toContain(format === "markdown" ? "ABC⟨U\\+202E⟩gnp\\.exe⟨U\\+200F⟩z" : "ABC⟨U+202E⟩gnp.exe⟨U+200F⟩z");
  }
});

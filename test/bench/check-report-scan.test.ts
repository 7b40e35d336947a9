/**
 * The benchmark reads check's JSON reports line by line (bench/lib/check-report-scan.ts): what it finds must be
 * what parsing the whole report finds, for reports written by the project's own renderer, across its 1 MiB
 * read boundaries (multi-byte text included), and a report cut short must be refused.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanCheckReport } from "../../bench/lib/check-report-scan.ts";
import { type CheckReport, renderReport } from "../../src/services/report/report.ts";
import type { LinkView } from "../../src/services/crawl-view.ts";
import { withDefaultOptions } from "../../src/core/stored-options.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-report-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const link = (n: number): LinkView => ({
  url: `http://site.test/page-${n % 50}.html`,
  source_url: `http://site.test/from-${n}.html`,
  status_code: n % 7 === 0 ? 404 : 200,
  is_broken: n % 7 === 0,
  link_text: `Überschrift ${n} — "quoted"\nnext line ✓ ${"ж".repeat(n % 90)}`,
  kind: "anchor",
  final_url: null,
  error: n % 7 === 0 ? "HTTP 404" : null,
  warning: null,
  broken_since: n % 7 === 0 ? "2026-01-01T00:00:00.000Z" : null,
});

async function written(links: LinkView[], name: string): Promise<string> {
  const report: CheckReport = {
    url: "http://site.test/",
    options: withDefaultOptions({}),
    summary: {
      status: "completed",
      error: null,
      failure: null,
      warnings: [],
      pages_cut: 0,
      pages_crawled: 3,
      total_links: links.length,
      broken_links: links.filter((l) => l.is_broken).length,
      skipped_links: 0,
      truncated: false,
      duration_ms: 5,
      reported_links: links.length,
      reported_broken: links.filter((l) => l.is_broken).length,
    },
    links: () => [links],
    brokenLinks: () => [links.filter((link) => link.is_broken)],
  };
  const path = join(dir, name);
  writeFileSync(path, (await Array.fromAsync(renderReport(report, "json"))).join(""));
  return path;
}

for (const count of [0, 1, 12_000]) {
  test(`a report of ${count} links scans to what parsing it whole gives`, async () => {
    const path = await written(
      Array.from({ length: count }, (_, i) => link(i)),
      `report-${count}.json`,
    );
    const whole = JSON.parse(await Bun.file(path).text()) as { summary: unknown; links: LinkView[] };
    if (count === 12_000) expect(Bun.file(path).size).toBeGreaterThan(2 * 1024 * 1024);

    const scanned = scanCheckReport(path);
    expect(scanned.summary).toEqual(whole.summary);
    expect(scanned.links).toBe(whole.links.length);
    expect([...scanned.brokenUrls].sort()).toEqual([...new Set(whole.links.filter((l) => l.is_broken).map((l) => l.url))].sort());
  });
}

test("a report cut off inside its links is refused", async () => {
  const path = await written(
    Array.from({ length: 100 }, (_, i) => link(i)),
    "whole.json",
  );
  const text = await Bun.file(path).text();
  const cut = join(dir, "cut.json");
  writeFileSync(cut, text.slice(0, text.indexOf("\n    {", text.length / 2)));
  expect(() => scanCheckReport(cut)).toThrow(/ended before its links did/);
  writeFileSync(cut, text.slice(0, text.length / 2));
  expect(() => scanCheckReport(cut)).toThrow();
});

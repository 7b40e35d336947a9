import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GroundTruthSites, type RunningSite, startGroundTruthSites, startSyntheticSite, type SyntheticSite } from "../fixtures/site-generator.ts";
import { runCli } from "../helpers/cli.ts";

/**
 * `linkpatrol check --format jsonl` as a child process: every line is a JSON object with a `type`, the links
 * are those of the JSON report of the same site (and of the model), warnings follow them and the summary is the
 * last line. On a 2,000-page generated site the file holds exactly one line per link plus the summary.
 */

let sites: GroundTruthSites;
let dir: string;
// The connect + header budget stays below the slow page's delay, as the model assumes.
const BASE = ["--allow-private", "--timeout", "400ms"];
const pair = (link: { source_url: string; url: string }) => `${link.source_url} → ${link.url}`;

beforeAll(async () => {
  sites = await startGroundTruthSites({ slowDelayMs: 1_500 });
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-jsonl-test-"));
});
afterAll(async () => {
  await sites?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const check = (...args: string[]) => runCli(["check", ...args], { timeoutMs: 90_000 });

/** Every line of a JSON Lines text parsed; the text must end with a newline and hold no blank line. */
function parseLines(text: string): any[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** Links in a comparable order (two crawls may discover them in different orders). */
const sorted = <T extends { source_url: string; url: string }>(links: T[]) => [...links].sort((x, y) => (pair(x) < pair(y) ? -1 : pair(x) > pair(y) ? 1 : 0));

test("jsonl: the JSON report's links and summary, one typed object per line, the summary last; exit 1", async () => {
  const jsonl = await check(sites.rootUrl, ...BASE, "--all", "--format", "jsonl");
  const json = await check(sites.rootUrl, ...BASE, "--all", "--format", "json");
  expect(jsonl.exitCode).toBe(1);
  expect(json.exitCode).toBe(1);
  const report = JSON.parse(json.stdout);
  const lines = parseLines(jsonl.stdout);

  const links = lines.filter((line) => line.type === "link");
  const warnings = lines.filter((line) => line.type === "warning");
  const summary = lines.at(-1)!;
  expect(summary.type).toBe("summary");
  expect(links.length + warnings.length + 1).toBe(lines.length);
  // Links first, then warnings, then the summary.
  expect(lines.slice(0, links.length).every((line) => line.type === "link")).toBe(true);

  expect(summary.url).toBe(report.url);
  expect(summary.options).toEqual(report.options);
  const { duration_ms: _a, ...summaryCounts } = summary.summary;
  const { duration_ms: _b, ...reportCounts } = report.summary;
  expect(summaryCounts).toEqual(reportCounts);
  expect(warnings.map((w) => w.message)).toEqual(summary.summary.warnings);

  expect(links.length).toBe(report.links.length);
  // broken_since is each run's own start: equal within a run, not across the two.
  const undated = (link: any) => ({ ...link, broken_since: link.broken_since === null ? null : "dated" });
  expect(sorted(links.map(({ type, ...link }) => undated(link)))).toEqual(sorted(report.links.map(undated)));
  const want = sites.expected({ scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true });
  expect(summary.summary.total_links).toBe(want.total_links);
  expect(links.map(pair).sort()).toEqual(want.links.map(pair).sort());
}, 20_000); // two `check` child processes over the ground-truth site, ~1–2 s each

test("jsonl on a 2,000-page site: one line per link and the summary, every link the model's", async () => {
  const flags = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: false };
  let site: RunningSite<SyntheticSite> | undefined;
  try {
    site = await startSyntheticSite({ pages: 2_000, seed: 3, slowPages: 0 });
    const want = site.expected(flags);
    const output = join(dir, "big.jsonl");
    const result = await check(
      site.rootUrl,
      "--allow-private",
      "--images",
      "--scripts",
      "--stylesheets",
      "--concurrency",
      "16",
      "--format",
      "jsonl",
      "--output",
      output,
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    const lines = parseLines(readFileSync(output, "utf8"));
    const summary = lines.at(-1)!;
    expect(summary.type).toBe("summary");
    expect(summary.summary).toMatchObject({
      status: "completed",
      pages_crawled: want.pages_crawled,
      total_links: want.total_links,
      broken_links: want.broken_links,
      skipped_links: want.skipped_links,
      warnings: [],
    });
    expect(lines.length).toBe(want.total_links + 1);
    const links = lines.slice(0, -1);
    expect(links.every((line) => line.type === "link")).toBe(true);
    const byPair = new Map(want.links.map((link) => [pair(link), link]));
    let matched = 0;
    for (const link of links) {
      const expected = byPair.get(pair(link));
      if (expected !== undefined && expected.status_code === link.status_code && expected.is_broken === link.is_broken && expected.kind === link.kind)
        matched++;
    }
    expect(matched).toBe(want.total_links);
    expect(new Set(links.map(pair)).size).toBe(want.total_links);
  } finally {
    await site?.stop();
  }
}, 90_000); // a 2,000-page crawl from source in a child process: ~5–15 s on a busy 2-core machine

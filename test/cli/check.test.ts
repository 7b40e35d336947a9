import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Parser } from "htmlparser2";
import { type GroundTruthSites, startGroundTruthSites } from "../fixtures/site-generator.ts";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { parseCsv } from "../helpers/csv.ts";

/**
 * `linkpatrol check URL` as CI runs it (a child process, stdout not a terminal) against the ground-truth site:
 * every format carries the model's totals and links (JSON read back, CSV parsed back per RFC 4180, JUnit parsed
 * back as XML), the exit code says whether anything is broken, and usage mistakes exit 2.
 */

let sites: GroundTruthSites;
let good: LoopbackSite;
let dir: string;
const ALL = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true };
// The connect + header budget stays below the slow page's delay, as the model assumes.
const BASE = ["--allow-private", "--timeout", "400ms"];

beforeAll(async () => {
  sites = await startGroundTruthSites({ slowDelayMs: 1_500 });
  good = await startLoopbackSite({ "/": { body: "<a href='/a'>A</a>" }, "/a": { body: "<a href='/'>home</a>" } });
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-check-test-"));
});
afterAll(async () => {
  await sites?.stop();
  await good?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const check = (...args: string[]) => runCli(["check", ...args], { timeoutMs: 60_000 });
const pair = (link: { source_url: string; url: string }) => `${link.source_url} → ${link.url}`;

describe("formats against the ground truth", () => {
  test("json: the model's totals and links, defaults and all options; exit 1", async () => {
    for (const flags of [{}, ALL]) {
      const want = sites.expected(flags);
      const result = await check(sites.rootUrl, ...BASE, ...(flags === ALL ? ["--all"] : []), "--format", "json");
      expect(result.exitCode).toBe(1);
      const report = JSON.parse(result.stdout);
      expect(report.summary).toMatchObject({
        status: "completed",
        pages_crawled: want.pages_crawled,
        total_links: want.total_links,
        broken_links: want.broken_links,
        skipped_links: want.skipped_links,
        reported_links: want.total_links,
        reported_broken: want.broken_links,
      });
      expect(report.links.map(pair).sort()).toEqual(want.links.map(pair).sort());
      for (const link of report.links) {
        const expected = want.links.find((w) => pair(w) === pair(link))!;
        expect({ status_code: link.status_code, is_broken: link.is_broken, link_text: link.link_text }).toEqual({
          status_code: expected.status_code,
          is_broken: expected.is_broken,
          link_text: expected.link_text,
        });
      }
    }
  }, 15_000); // two `check` child processes over the ground-truth site, ~1 s each

  test("csv: a header and one row per link, parsed back", async () => {
    const want = sites.expected(ALL);
    const result = await check(sites.rootUrl, ...BASE, "--all", "--format", "csv");
    const [header, ...rows] = parseCsv(result.stdout);
    expect(header).toEqual(["source_url", "url", "status_code", "is_broken", "kind", "link_text", "final_url", "error", "warning", "broken_since"]);
    expect(rows).toHaveLength(want.total_links);
    expect(rows.map((r) => `${r[0]} → ${r[1]}`).sort()).toEqual(want.links.map(pair).sort());
    expect(rows.filter((r) => r[3] === "true")).toHaveLength(want.broken_links);
    const texts = new Set(rows.map((r) => r[5]));
    for (const link of want.links) expect(texts.has(link.link_text)).toBe(true);
  }, 15_000); // a `check` child process over the ground-truth site

  test("junit: parsed back as XML, one testcase per link and one failure per broken link", async () => {
    const want = sites.expected({});
    const file = join(dir, "links.xml");
    const result = await check(sites.rootUrl, ...BASE, "--format", "junit", "--output", file);
    expect(result.stdout).toBe("");
    const cases: { name: string; failed: boolean }[] = [];
    let suites = 0;
    const parser = new Parser(
      {
        onopentag(name, attributes) {
          if (name === "testsuite") suites++;
          if (name === "testcase") cases.push({ name: attributes.name!, failed: false });
          if (name === "failure") cases.at(-1)!.failed = true;
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
    parser.write(readFileSync(file, "utf8"));
    parser.end();
    expect(suites).toBe(1);
    expect(cases).toHaveLength(want.total_links);
    expect(cases.filter((c) => c.failed)).toHaveLength(want.broken_links);
    expect(new Set(cases.filter((c) => c.failed).map((c) => c.name))).toEqual(new Set(want.links.filter((l) => l.is_broken).map((l) => l.url)));
  }, 15_000); // a `check` child process over the ground-truth site

  test("markdown and text name every broken link", async () => {
    const want = sites.expected({});
    const broken = want.links.filter((l) => l.is_broken);
    const markdown = (await check(sites.rootUrl, ...BASE, "--format", "markdown")).stdout;
    expect(markdown).toContain("| pages | links | broken | skipped | status |");
    expect(markdown).toContain(`| ${want.pages_crawled} | ${want.total_links} | ${want.broken_links} | ${want.skipped_links} | completed |`);
    const text = (await check(sites.rootUrl, ...BASE)).stdout;
    expect(text).toContain(`${want.pages_crawled} pages, ${want.total_links} links, ${want.broken_links} broken`);
    // The markdown report escapes what it quotes (test/cli/check-report-injection.test.ts).
    const escaped = (url: string) => url.replace(/[!-/:-@[-`{-~]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c] ?? `\\${c}`);
    for (const link of broken) {
      expect(markdown).toContain(escaped(link.url));
      expect(text).toContain(link.url);
    }
  }, 15_000); // two `check` child processes over the ground-truth site, ~1 s each
});

describe("exit codes, filters and the terminal", () => {
  test("0 when nothing is broken; no progress line when stderr is not a terminal", async () => {
    const result = await check(good.url("/"), "--allow-private");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("2 pages, 2 links, 0 broken");
    expect(result.stderr).toBe("");
  }, 15_000); // a `check` child process

  test("--exclude / --include change what is reported and the exit code", async () => {
    const want = sites.expected({});
    const brokenUrls = [...new Set(want.links.filter((l) => l.is_broken).map((l) => l.url))];
    const excludeAll = brokenUrls.flatMap((url) => ["--exclude", `^${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`]);
    const clean = await check(sites.rootUrl, ...BASE, "--format", "json", ...excludeAll);
    expect(clean.exitCode).toBe(0);
    expect(JSON.parse(clean.stdout).summary).toMatchObject({ reported_broken: 0, broken_links: want.broken_links });
    const only = await check(sites.rootUrl, ...BASE, "--format", "json", "--include", "/robots-free-nothing-matches$");
    expect(JSON.parse(only.stdout).summary.reported_links).toBe(0);
    expect(only.exitCode).toBe(0);
  }, 15_000); // two `check` child processes over the ground-truth site, ~1 s each

  test("--header and --user-agent reach the site on every request", async () => {
    good.requests.length = 0;
    good.requestHeaders.length = 0;
    const result = await check(good.url("/"), "--allow-private", "--header", "X-Token: s3cret", "--user-agent", "audit-bot/1");
    expect(result.exitCode).toBe(0);
    expect(good.requestHeaders.length).toBeGreaterThan(0);
    for (const headers of good.requestHeaders) expect(headers).toMatchObject({ "x-token": "s3cret", "user-agent": "audit-bot/1" });
  }, 15_000); // a `check` child process

  test.each([
    [["not a url"], "not a URL"],
    [["ftp://example.com/"], "only http and https"],
    [[], "needs a URL"],
    [["http://127.0.0.1:9/", "--format", "xml"], "--format must be one of"],
    [["http://127.0.0.1:9/", "--bogus"], "bogus"],
    [["http://127.0.0.1:9/", "--concurrency", "0"], "--concurrency"],
    [["http://127.0.0.1:9/", "--timeout", "soon"], "--timeout"],
    [["http://127.0.0.1:9/", "--include", "("], "--include"],
    [["http://127.0.0.1:9/", "--header", "no-colon"], "--header"],
    [["http://127.0.0.1:9/"], "--allow-private"],
  ])("exit 2 for %j", async (args, message) => {
    const result = await check(...args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, type Route, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check` on a start URL that gives nothing to crawl: the crawl fails naming the start page and
 * what happened to it, the report says so in every format, and the exit code is 1 (a finding about the site,
 * like a broken link) — never "0 pages, 0 links, 0 broken" and exit 0. And a crawl that did run but found
 * nothing in scope says so in a warning.
 */

const sites: LoopbackSite[] = [];
let closedPort: number;

async function site(routes: Record<string, Route>): Promise<LoopbackSite> {
  const started = await startLoopbackSite(routes);
  sites.push(started);
  return started;
}

beforeAll(async () => {
  const gone = await startLoopbackSite({});
  closedPort = gone.port;
  await gone.stop();
});
afterAll(async () => {
  await Promise.all(sites.map((s) => s.stop()));
});

const check = (url: string, ...flags: string[]) =>
  runCli(["check", url, "--allow-private", "--timeout", "400ms", "--format", "json", ...flags], { timeoutMs: 30_000 });

async function expectStartPageFailure(url: string, error: RegExp, ...flags: string[]) {
  const run = await check(url, ...flags);
  expect(run.stderr).toContain("the crawl failed");
  expect(run.exitCode).toBe(1);
  const { summary } = JSON.parse(run.stdout);
  expect(summary).toMatchObject({ status: "failed", failure: "start_page", pages_crawled: 0 });
  expect(summary.error).toContain(`the start page ${url}`);
  expect(summary.error).toMatch(error);
  return summary;
}

describe("a start page that cannot be crawled fails the check (exit 1) and names the cause", () => {
  test("nothing listens", async () => {
    await expectStartPageFailure(`http://127.0.0.1:${closedPort}/`, /could not be fetched: .*refused/i);
  });

  test.each([404, 500, 410])("it answers %d", async (status) => {
    const s = await site({ "/": { status, body: "<a href='/a'>a</a>" }, "/a": { body: "ok" } });
    await expectStartPageFailure(s.url("/"), new RegExp(`answered HTTP ${status}`));
  });

  test("it answers 404 after a redirect, which the error names", async () => {
    const s = await site({ "/": { status: 301, headers: { location: "/moved/" } } });
    await expectStartPageFailure(s.url("/"), new RegExp(`answered HTTP 404 \\(redirected to ${s.url("/moved/").replaceAll(".", "\\.")}\\)`));
  });

  test("a redirect loop", async () => {
    const s = await site({ "/": { status: 302, headers: { location: "/a" } }, "/a": { status: 302, headers: { location: "/" } } });
    await expectStartPageFailure(s.url("/"), /could not be fetched: .*redirect loop/i);
  });

  test("it never answers (timeout)", async () => {
    const s = await site({ "/": () => new Promise<Response>(() => {}) });
    await expectStartPageFailure(s.url("/"), /could not be fetched: no response headers .* within/);
  });

  test("it redirects to another site (host and port)", async () => {
    const other = await site({ "/": { body: "<a href='/x'>x</a>" } });
    const s = await site({ "/": { status: 301, headers: { location: other.url("/") } } });
    await expectStartPageFailure(s.url("/"), new RegExp(`redirects to ${other.url("/").replaceAll(".", "\\.")}, outside the crawled site`));
  });

  test("it answers 200 with something that is not HTML", async () => {
    const s = await site({ "/": { body: "%PDF-1.4", headers: { "content-type": "application/pdf" } } });
    await expectStartPageFailure(s.url("/"), /answered HTTP 200 but is not an HTML page/);
  });

  test.each([
    ["Disallow: /", { body: "User-agent: *\nDisallow: /\n", headers: { "content-type": "text/plain" } }, /robots\.txt disallows it/],
    ["answers 500", { status: 500, body: "oops" }, /robots\.txt answered HTTP 500, which disallows the whole site/],
    ["answers 429", { status: 429, body: "slow down" }, /robots\.txt answered HTTP 429, which disallows the whole site/],
  ] as const)("robots.txt %s", async (_name, robots, error) => {
    const s = await site({ "/robots.txt": robots as Route, "/": { body: "<a href='/a'>a</a>" }, "/a": { body: "ok" } });
    const summary = await expectStartPageFailure(s.url("/"), error);
    expect(summary.skipped_links).toBe(1);
    expect(s.requests).not.toContain("GET /");
  });

  test("every format says the crawl failed; junit counts it as a failing test case", async () => {
    const s = await site({ "/": { status: 404, body: "gone" } });
    const text = await check(s.url("/"), "--format", "text");
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(`crawl failed: the start page ${s.url("/")} answered HTTP 404`);
    const markdown = await check(s.url("/"), "--format", "markdown");
    expect(markdown.stdout).toContain("**Crawl failed:** the start page");
    expect(markdown.stdout).not.toContain("No broken links.");
    const junit = await check(s.url("/"), "--format", "junit");
    expect(junit.stdout).toContain('<testsuites name="linkpatrol" tests="1" failures="1"');
    expect(junit.stdout).toContain('type="start_page"');
  }, 15_000); // three `check` child processes
});

describe("a crawl that ran but had nothing to check says so", () => {
  test("every link out of scope: completed, exit 0, with a warning in the report and on stderr", async () => {
    const s = await site({ "/": { body: "<a href='http://elsewhere.example/'>out</a><img src='/i.png'><script src='/s.js'></script>" } });
    const run = await check(s.url("/"));
    expect(run.exitCode).toBe(0);
    const { summary } = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ status: "completed", failure: null, pages_crawled: 1, total_links: 0 });
    expect(summary.warnings).toEqual([expect.stringContaining("no links to check")]);
    expect(run.stderr).toContain("warning: no links to check");
  });

  test("a page with links in scope has no such warning", async () => {
    const s = await site({ "/": { body: "<a href='/a'>a</a>" }, "/a": { body: "ok" } });
    const run = await check(s.url("/"));
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).summary.warnings).toEqual([]);
  });
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check --fragments` as a process: a missing section is a broken link in every report format, with
 * the page's status and `fragment #x not found`, and makes the exit code 1; each URL with its fragment is a link
 * of its own (its own text and verdict), its page fetched once. Without the flag the site is clean, with one link
 * per page as ever.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => html(`<a href="/doc.html#present">ok</a> <a href="/doc.html#gone">gone</a> <a href="/doc.html#top">top of doc</a> <a href="#top">top</a>`),
    "/doc.html": () => html(`<h2 id="present">here</h2>`),
  });
});
afterAll(async () => {
  await site?.stop();
});

const check = (...flags: string[]) => runCli(["check", site.url("/"), "--allow-private", "--timeout", "2s", ...flags], { timeoutMs: 30_000 });

test("--fragments: each URL with its fragment is a link in json, the missing one broken with the page's 200", async () => {
  const before = site.requests.length;
  const run = await check("--fragments", "--format", "json");
  expect(run.exitCode).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report.options.check_fragments).toBe(true);
  expect(report.summary).toMatchObject({ status: "completed", broken_links: 1, total_links: 4, reported_links: 4, reported_broken: 1 });
  expect(report.links.map((link: any) => [link.url, link.link_text, link.status_code, link.is_broken, link.error])).toEqual([
    [site.url("/doc.html#present"), "ok", 200, false, null],
    [site.url("/doc.html#gone"), "gone", 200, true, "fragment #gone not found"],
    [site.url("/doc.html#top"), "top of doc", 200, false, null],
    [site.url("/#top"), "top", 200, false, null],
  ]);
  expect(site.requests.slice(before).filter((line) => line.endsWith(" /doc.html"))).toEqual(["GET /doc.html"]);
}, 20_000); // a check process

test("--fragments --format jsonl and csv: the broken link by its own URL and text", async () => {
  const jsonl = await check("--fragments", "--format", "jsonl");
  const lines = jsonl.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines.filter((line) => line.type === "link" && line.is_broken).map((line) => [line.url, line.link_text])).toEqual([
    [site.url("/doc.html#gone"), "gone"],
  ]);
  expect(lines.at(-1)).toMatchObject({ type: "summary", summary: { total_links: 4, broken_links: 1 } });
  const csv = await check("--fragments", "--format", "csv");
  const broken = csv.stdout.split("\n").filter((line) => line.includes("fragment #gone not found"));
  expect(broken).toHaveLength(1);
  expect(broken[0]).toContain(site.url("/doc.html#gone"));
  expect(broken[0]).toContain("gone");
}, 30_000); // two check processes

test.each([
  ["markdown", "fragment \\#gone not found"], // Markdown-escaped
  ["junit", "fragment #gone not found"],
  ["csv", "fragment #gone not found"],
  ["text", "fragment #gone not found"],
])(
  "--fragments --format %s names the missing fragment",
  async (format, expected) => {
    const run = await check("--fragments", "--format", format);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(expected);
  },
  20_000,
); // a check process

test("without --fragments the same site is clean: one link per page, named by its first text", async () => {
  const run = await check("--format", "json");
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report.summary).toMatchObject({ broken_links: 0, total_links: 2 });
  expect(report.links.map((link: any) => [link.url, link.link_text])).toEqual([
    [site.url("/doc.html"), "ok"],
    [site.url("/"), "top"],
  ]);
}, 20_000); // a check process

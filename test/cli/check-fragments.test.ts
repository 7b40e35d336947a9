import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check --fragments` as a process: a missing section is a broken link in every report format, with
 * the page's status and `fragment #x not found`, and makes the exit code 1; without the flag the site is clean.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => html(`<a href="/doc.html#present">ok</a> <a href="/doc.html#gone">gone</a> <a href="#top">top</a>`),
    "/doc.html": () => html(`<h2 id="present">here</h2>`),
  });
});
afterAll(async () => {
  await site?.stop();
});

const check = (...flags: string[]) => runCli(["check", site.url("/"), "--allow-private", "--timeout", "2s", ...flags], { timeoutMs: 30_000 });

test("--fragments: the missing fragment is broken in json, with the page's 200", async () => {
  const run = await check("--fragments", "--format", "json");
  expect(run.exitCode).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report.options.check_fragments).toBe(true);
  expect(report.summary).toMatchObject({ status: "completed", broken_links: 1, total_links: 2 });
  expect(report.links.filter((link: any) => link.is_broken)).toEqual([
    expect.objectContaining({ url: site.url("/doc.html"), status_code: 200, error: "fragment #gone not found" }),
  ]);
}, 20_000); // a check process

test.each([
  ["markdown", "fragment \\#gone not found"], // Markdown-escaped
  ["junit", "fragment #gone not found"],
  ["csv", "fragment #gone not found"],
  ["text", "fragment #gone not found"],
])("--fragments --format %s names the missing fragment", async (format, expected) => {
  const run = await check("--fragments", "--format", format);
  expect(run.exitCode).toBe(1);
  expect(run.stdout).toContain(expected);
}, 20_000); // a check process

test("without --fragments the same site is clean", async () => {
  const run = await check("--format", "json");
  expect(run.exitCode).toBe(0);
  expect(JSON.parse(run.stdout).summary.broken_links).toBe(0);
}, 20_000); // a check process

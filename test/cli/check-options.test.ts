import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check` says what it checked at the head of every report that has a head: two runs of one site with
 * different options find different things, and a reader must see which (json and jsonl carry the `options`
 * object; text, markdown and JUnit say it in words). Its json, jsonl and csv links carry `broken_since`: for a
 * one-off run, its own start.
 */

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: `<a href="/a">A</a> <a href="/missing">Missing</a> <img src="/logo.png">` },
    "/a": { body: `<a href="/">home</a>` },
    "/logo.png": { body: new Uint8Array([137, 80, 78, 71]), headers: { "content-type": "image/png" } },
  });
});
afterAll(async () => {
  await site?.stop();
});

const check = (...args: string[]) => runCli(["check", site.url("/"), "--allow-private", ...args], { timeoutMs: 60_000 });

test("text, markdown and JUnit reports name the options in words", async () => {
  const text = await check("--images", "--fragments", "--format", "text");
  expect(text.exitCode).toBe(1);
  expect(text.stdout.split("\n")[1]).toBe("checked: anchors, images; internal links only; #fragments");
  const plain = await check("--format", "text");
  expect(plain.stdout.split("\n")[1]).toBe("checked: anchors only; internal links only");
  const markdown = await check("--images", "--external", "--format", "markdown");
  expect(markdown.stdout).toContain("Checked: anchors, images; internal and external links");
  const junit = await check("--images", "--format", "junit");
  expect(junit.stdout).toContain('<property name="options" value="anchors, images; internal links only"/>');
}, 60_000); // four check runs of a three-page site

test("json and jsonl carry the options object; json, jsonl and csv links carry broken_since", async () => {
  const json = JSON.parse((await check("--images", "--format", "json")).stdout);
  expect(json.options).toMatchObject({ scan_images: true, follow_external: false, check_fragments: false });
  const missing = json.links.find((link: any) => link.url === site.url("/missing"));
  expect(typeof missing.broken_since).toBe("string");
  expect(json.links.filter((link: any) => !link.is_broken).every((link: any) => link.broken_since === null)).toBe(true);
  const lines = (await check("--format", "jsonl")).stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines.at(-1)).toMatchObject({ type: "summary", options: { scan_images: false } });
  expect(lines.find((line) => line.url === site.url("/missing")).broken_since).toEqual(expect.any(String));
  const csv = (await check("--format", "csv")).stdout.split("\r\n");
  expect(csv[0]).toEndWith(",broken_since");
  expect(csv.find((row) => row.includes("/missing"))).toMatch(/,\d{4}-\d\d-\d\dT[\d:.]+Z$/);
}, 60_000); // three check runs of a three-page site

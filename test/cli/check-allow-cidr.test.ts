import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * What `check --allow-private` opens: a site on 127.0.0.1 whose link redirects to another loopback address,
 * 127.0.0.2 (a second site bound there). With --allow-private alone only the start address is opened: the link
 * is an error and no request reaches 127.0.0.2. With --allow-cidr naming it, it is reached.
 */

let start: LoopbackSite;
let other: LoopbackSite;

beforeAll(async () => {
  other = await startLoopbackSite({ "/target": { body: "<title>elsewhere</title>" } }, { hostname: "127.0.0.2" });
  start = await startLoopbackSite({
    "/": { body: `<title>Home</title><a href="/jump">jump</a> <a href="/a">a</a>` },
    "/a": { body: "<title>A</title>" },
    "/jump": { status: 302, headers: { location: other.url("/target") } },
  });
});
afterAll(async () => {
  await start?.stop();
  await other?.stop();
});

const check = (...flags: string[]) => runCli(["check", start.url("/"), "--format", "json", ...flags], { timeoutMs: 20_000 });
const linkTo = (report: { links: { url: string; error: string | null }[] }, path: string) => report.links.find((link) => link.url === start.url(path))!;

test("--allow-private opens the start address only: a redirect to 127.0.0.2 is refused, and never asked", async () => {
  const result = await check("--allow-private");
  expect(result.exitCode).toBe(1);
  const report = JSON.parse(result.stdout);
  expect(report.summary).toMatchObject({ status: "completed", pages_crawled: 2, broken_links: 1 });
  expect(linkTo(report, "/jump")).toMatchObject({ status_code: 0, is_broken: true });
  expect(linkTo(report, "/jump").error).toContain("127.0.0.2");
  expect(linkTo(report, "/a")).toMatchObject({ status_code: 200, is_broken: false });
  expect(other.requests).toEqual([]);
}, 30_000);

test("--allow-cidr 127.0.0.2/32 beside --allow-private opens that address too", async () => {
  const result = await check("--allow-private", "--allow-cidr", "127.0.0.2/32");
  expect(result.exitCode).toBe(0);
  const report = JSON.parse(result.stdout);
  expect(linkTo(report, "/jump")).toMatchObject({ status_code: 200, is_broken: false, final_url: other.url("/target") });
  expect(other.requests).toContain("GET /target");
}, 30_000);

test("--allow-cidr alone, repeated, opens exactly the blocks it names", async () => {
  other.requests.length = 0;
  const result = await check("--allow-cidr", "127.0.0.1", "--allow-cidr", "127.0.0.2/32");
  expect(result.exitCode).toBe(0);
  expect(linkTo(JSON.parse(result.stdout), "/jump")).toMatchObject({ status_code: 200, is_broken: false });
  expect(other.requests).toContain("GET /target");
}, 30_000);

test("a start address neither flag opens, and a block that is not one, are usage errors", async () => {
  const refused = await check("--allow-cidr", "127.0.0.2/32");
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toContain("needs --allow-private, or --allow-cidr naming it");
  const bad = await check("--allow-cidr", "127.0.0.300/32");
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toContain('--allow-cidr takes a CIDR block such as 10.1.0.0/16 or fd00::/64, got "127.0.0.300/32"');
}, 30_000);

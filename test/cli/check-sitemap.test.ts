import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check --sitemap` and `--soft-404-broken` as a child process: every report format shows the
 * orphan pages and the broken sitemap entries (a broken link whose source is the sitemap), and a soft 404 is a
 * warning, or a broken link that makes check exit 1 with --soft-404-broken.
 */

let site: LoopbackSite;
const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = await startLoopbackSite(
    {
      "/": () => html(`<title>Home</title><a href="/a">A</a> <a href="/soft">an old page</a>`),
      "/a": () => html("<title>A</title><p>page a has real content</p>"),
      "/orphan": () => html("<title>Orphan</title><p>nobody links here</p>"),
      "/sitemap.xml": (_r, s) =>
        new Response(`<urlset><url><loc>${s.url("/")}</loc></url><url><loc>${s.url("/orphan")}</loc></url><url><loc>${s.url("/gone")}</loc></url></urlset>`, {
          headers: { "content-type": "application/xml" },
        }),
      "/gone": { status: 404, body: "gone" },
    },
    { fallback: (request) => html(`<title>Not found</title><p>We could not find ${new URL(request.url).pathname}, sorry.</p>`) },
  );
});
afterAll(async () => {
  await site?.stop();
});

const check = (...args: string[]) => runCli(["check", site.url("/"), "--allow-private", "--sitemap", ...args], { timeoutMs: 30_000 });

test("json: orphans listed after the links; the broken entry is a link from the sitemap; the soft 404 a warning", async () => {
  const run = await check("--format", "json");
  expect(run.exitCode).toBe(1); // the broken sitemap entry
  const report = JSON.parse(run.stdout);
  expect(report.options).toMatchObject({ use_sitemap: true, soft_404_broken: false });
  expect(report.summary).toMatchObject({ sitemap_urls: 3, orphan_pages: 2, broken_links: 1 });
  expect(report.orphans.map((o: any) => `${new URL(o.url).pathname} ${o.status_code}`).sort()).toEqual(["/gone 404", "/orphan 200"]);
  const broken = report.links.filter((l: any) => l.is_broken);
  expect(broken).toHaveLength(1);
  expect(broken[0]).toMatchObject({ url: site.url("/gone"), source_url: site.url("/sitemap.xml"), kind: "sitemap" });
  const soft = report.links.find((l: any) => l.url === site.url("/soft"));
  expect(soft).toMatchObject({ is_broken: false, status_code: 200 });
  expect(soft.warning).toStartWith("soft_404: ");
});

test("--soft-404-broken makes the soft 404 broken", async () => {
  const report = JSON.parse((await check("--format", "json", "--soft-404-broken")).stdout);
  expect(report.summary.broken_links).toBe(2);
  expect(report.links.find((l: any) => l.url === site.url("/soft")).is_broken).toBe(true);
});

test("jsonl, text, markdown and junit show the orphans and the broken entry", async () => {
  const lines = (await check("--format", "jsonl")).stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(
    lines
      .filter((line) => line.type === "orphan")
      .map((line) => line.url)
      .sort(),
  ).toEqual([site.url("/gone"), site.url("/orphan")]);
  expect(lines.at(-1)).toMatchObject({ type: "summary", summary: { orphan_pages: 2 } });

  const text = (await check()).stdout;
  expect(text).toContain("3 in sitemaps (2 orphan)");
  expect(text).toContain(`${site.url("/sitemap.xml")}\n  ✗ ${site.url("/gone")}  HTTP 404`);
  expect(text).toContain(`orphan pages (listed in a sitemap, linked from no crawled page):\n`);
  expect(text).toContain(`  ○ ${site.url("/orphan")}  HTTP 200`);

  const markdown = (await check("--format", "markdown")).stdout;
  expect(markdown).toContain("**Orphan pages**");
  expect(markdown).toContain("| HTTP 404 (broken) |");

  const junit = (await check("--format", "junit")).stdout;
  expect(junit).toContain(`<property name="orphan_page" value="${site.url("/orphan")} (HTTP 200)"/>`);
  expect(junit).toContain(`<testcase classname="${site.url("/sitemap.xml")}" name="${site.url("/gone")}">`);
}, 30_000); // four check processes in a row

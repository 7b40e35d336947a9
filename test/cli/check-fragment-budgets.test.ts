import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * Issue 38 item 6, `check --fragments` as a process on pages a real site has: a 150 KB page with 2,500 ids
 * (~96 KiB of id text) and an id of 1,500 characters still gives verdicts; 40 fragments asked of one page are
 * all checked; and where a verdict cannot be given (a page with more ids than are kept, a fragment too long to
 * check) the link gets a warning and the crawl a warning saying how many links and why.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });
const section = (i: number) => `section-${i}-${"x".repeat(28)}`;
const LONG_ID = "L".repeat(1_500);
const TOO_LONG = "z".repeat(2_100);

let site: LoopbackSite;

beforeAll(async () => {
  const big = `${Array.from({ length: 2_500 }, (_, i) => `<h2 id="${section(i)}">Section ${i}</h2>`).join("")}<p id="${LONG_ID}">long</p>`;
  const forty = Array.from({ length: 35 }, (_, i) => `<p id="f${i}">${i}</p>`).join("");
  const tooMany = Array.from({ length: 100_010 }, (_, i) => `<i id="i${i}"></i>`).join("");
  site = await startLoopbackSite({
    "/": () =>
      html(
        `<a href="/big.html#${section(0)}">first</a> <a href="/big.html#${section(2_499)}">last</a> <a href="/big.html#${LONG_ID}">long</a>` +
          ` <a href="/big.html#no-such-section">missing</a>` +
          Array.from({ length: 40 }, (_, i) => ` <a href="/forty.html#f${i}">f${i}</a>`).join("") +
          ` <a href="/too-many.html#i5">kept</a> <a href="/too-many.html#not-among">not among</a> <a href="/big.html#${TOO_LONG}">too long</a>`,
      ),
    // ~150 KB: every id with a paragraph of text after it.
    "/big.html": () => html(big.replaceAll("</h2>", `</h2><p>${"words ".repeat(3)}</p>`)),
    "/forty.html": () => html(forty),
    "/too-many.html": () => html(tooMany),
  });
});
afterAll(async () => {
  await site?.stop();
});

test("verdicts on big pages, every fragment of a page checked, and a crawl warning for each verdict downgraded", async () => {
  const page = await fetch(site.url("/big.html")).then((answer) => answer.text());
  expect(page.length).toBeGreaterThan(145_000);
  const run = await runCli(["check", site.url("/"), "--allow-private", "--fragments", "--format", "json"], { timeoutMs: 60_000 });
  expect(run.exitCode).toBe(1);
  const report = JSON.parse(run.stdout);
  const link = (path: string) => report.links.find((one: any) => one.url === site.url(path));

  // The 150 KB page with 2,500 ids and a long one: found where it is, broken where it is not.
  for (const path of [`/big.html#${section(0)}`, `/big.html#${section(2_499)}`, `/big.html#${LONG_ID}`]) {
    expect(link(path)).toMatchObject({ status_code: 200, is_broken: false, error: null, warning: null });
  }
  expect(link("/big.html#no-such-section")).toMatchObject({ status_code: 200, is_broken: true, error: "fragment #no-such-section not found" });

  // 40 fragments of one page: 40 Links, the 5 missing ones broken, each naming its own.
  const forty = report.links.filter((one: any) => one.url.startsWith(site.url("/forty.html#")));
  expect(forty).toHaveLength(40);
  expect(forty.filter((one: any) => one.is_broken).map((one: any) => [one.link_text, one.error])).toEqual(
    [35, 36, 37, 38, 39].map((i) => [`f${i}`, `fragment #f${i} not found`]),
  );

  // Past the ids kept and past the length checked: warnings, never broken, and the crawl says how many and why.
  expect(link("/too-many.html#i5")).toMatchObject({ is_broken: false, warning: null });
  expect(link("/too-many.html#not-among")).toMatchObject({ is_broken: false, error: null });
  expect(link("/too-many.html#not-among").warning).toStartWith("fragment #not-among not found among the 100,000 ids kept of the page");
  const tooLong = report.links.find((one: any) => one.link_text === "too long");
  expect(tooLong).toMatchObject({ is_broken: false, error: null });
  expect(tooLong.url).toEndWith("…[2100 characters]");
  expect(tooLong.warning).toEndWith("longer than 2,048 characters: not checked");
  expect(report.summary.warnings).toEqual([
    "1 link's #fragment could not be proven missing: the page has more than 100,000 ids, past which ids are not kept; those links carry a warning and are not counted as broken",
    "1 link's #fragment is longer than 2,048 characters: not checked; those links carry a warning and are not counted as broken",
  ]);
  expect(report.summary).toMatchObject({ status: "completed", total_links: 47, broken_links: 6 });
  // Each page fetched once, whatever number of its fragments was asked.
  expect(site.requests.filter((line) => line.startsWith("GET /big.html"))).toHaveLength(2); // this test's own fetch, and check's
  expect(site.requests.filter((line) => line.startsWith("GET /forty.html"))).toHaveLength(1);
}, 60_000); // a check process reading a 1.7 MB page

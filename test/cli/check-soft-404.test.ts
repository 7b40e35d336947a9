import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol check` on a site whose soft-404 probe hangs: the probe has its own bound, far below the hang and
 * below the request timeouts, so the check ends and its warning says the probe had no answer. Bounded without a
 * timed assertion: the hang (until the site stops) is far longer than the bound (5 s, SOFT_404_PROBE_TIMEOUT_MS), and the child is killed at 25 s.
 */

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite(
    {
      "/": { body: `<title>Home</title><a href="/a">a</a> <a href="/b">b</a>` },
      "/a": { body: `<title>A</title><a href="/">home</a>` },
      "/b": { body: `<title>B</title><a href="/">home</a>` },
    },
    {
      fallback: (request) => {
        if (!new URL(request.url).pathname.startsWith("/linkpatrol-missing-")) return new Response("not found", { status: 404 });
        // Held until the site stops; a cut promise, not a sleep, so stop() does not wait for it.
        return new Promise<Response>(() => {});
      },
    },
  );
});
afterAll(async () => {
  await site?.stop();
});

test("a probe that hangs: check ends, the report is complete, and a warning says the probe had no answer", async () => {
  const result = await runCli(["check", site.url("/"), "--allow-private", "--format", "json"], { timeoutMs: 25_000 });
  expect(result.exitCode).toBe(0);
  const report = JSON.parse(result.stdout);
  expect(report.summary).toMatchObject({ status: "completed", pages_crawled: 3, total_links: 4, broken_links: 0 });
  const warning =
    `the soft-404 probe (GET ${site.origin}/linkpatrol-missing-…) had no answer within 5 s: ` +
    "soft 404s are not detected in this crawl, so a missing page that answers 200 passes as working";
  expect(report.summary.warnings).toEqual([warning]);
  expect(result.stderr).toContain(`linkpatrol: warning: ${warning}`);
  expect(site.requests.filter((line) => line.startsWith("GET /linkpatrol-missing-"))).toHaveLength(1);
}, 40_000);

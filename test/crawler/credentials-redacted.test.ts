import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { createLogger } from "../../src/core/logger.ts";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A password in a URL — in an href, in a redirect's Location, or in check's own URL — is stored, returned,
 * reported and logged as `***`: the API's links, the store's bytes, check's report and the service's log lines
 * never hold it. check turns its URL's credentials into the site's Basic Authorization instead.
 */

const SECRETS = ["hunter2", "s3cr3t-loc", "ci-pass"];

let site: LoopbackSite;
let svc: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () =>
      new Response(
        `<a href="http://alice:hunter2@${site.host}/private">private</a> <a href="/hop">hop</a> <a href="http://nobody:hunter2@127.0.0.1:1/down">down</a>`,
        { headers: { "content-type": "text/html" } },
      ),
    "/private": { body: "ok" },
    "/hop": () => new Response(null, { status: 302, headers: { location: `http://bob:s3cr3t-loc@${site.host}/landing` } }),
    "/landing": { body: "landed" },
  });
  svc = await startTestService({ logging: { level: "debug" } }, { logger: createLogger("debug", (line) => void logLines.push(line)) });
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

const leaks = (text: string) => SECRETS.filter((secret) => text.includes(secret));

test("the service stores, returns and logs links with the password replaced", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const detail = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  expect(links.map((link) => [link.url, link.final_url])).toEqual(
    expect.arrayContaining([
      [`http://alice:***@${site.host}/private`, `http://alice:***@${site.host}/private`],
      [site.url("/hop"), `http://bob:***@${site.host}/landing`],
    ]),
  );
  const broken = await svc.call("GET", `/crawls/${id}/broken`);
  const answers = JSON.stringify([detail, links, broken.json]);
  expect(leaks(answers)).toEqual([]);

  const dir = dirname(svc.config.storage.path);
  const stored = readdirSync(dir)
    .map((file) => readFileSync(`${dir}/${file}`).toString("latin1"))
    .join("\n");
  expect(stored).toContain("alice:***@"); // the store was read, and holds the redacted form
  expect(leaks(stored)).toEqual([]);
  expect(logLines.length).toBeGreaterThan(0);
  expect(leaks(logLines.join("\n"))).toEqual([]);
});

test("check sends its URL's credentials as Basic auth to the site and reports the URL without them", async () => {
  const before = site.requestHeaders.length;
  const run = await runCli(["check", `http://carol:ci-pass@${site.host}/`, "--allow-private", "--format", "json"], { timeoutMs: 30_000 });
  expect(run.exitCode).toBe(0);
  expect(leaks(run.stdout + run.stderr)).toEqual([]);
  expect(JSON.parse(run.stdout).url).toBe(site.url("/"));
  const auth = site.requestHeaders.slice(before).map((headers) => headers.authorization);
  expect(auth.length).toBeGreaterThan(0);
  expect(new Set(auth)).toEqual(new Set([`Basic ${Buffer.from("carol:ci-pass").toString("base64")}`]));
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * A crawl with check_fragments killed (SIGKILL) mid-way resumes after a restart and ends as if it had never
 * stopped: each URL with its fragment one Link with its own text and verdict, none counted twice. Killed once
 * while it judges its fragments (every target checked, a page still being fetched for its ids), and once while
 * the page three Links with fragments wait for is being fetched (they are in the store, the page is not).
 */

const KEY = `lp_${"F".repeat(40)}`;
const api = apiClient(KEY);
const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

/** A promise with its resolver, for a request that must wait until the test says so. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let dir: string;
let configFile: string;
const sites: LoopbackSite[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-fragments-resume-"));
  configFile = writeServeConfig(dir, KEY, [], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
  await setUpStore(["--config", configFile]);
});
afterAll(async () => {
  for (const site of sites) await site.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** "source path → target path#fragment text: verdict" of a link. */
const row = (link: any) =>
  `${new URL(link.source_url).pathname} → ${new URL(link.url).pathname}${new URL(link.url).hash} "${link.link_text}": ${link.status_code} ${link.error ?? "ok"}`;

/**
 * Starts a crawl of `site` with check_fragments on a `serve` process, kills it with SIGKILL once `reached`
 * resolves, starts another and returns the crawl once it ended, with all its links and broken links.
 */
async function crawlKilledOnce(site: LoopbackSite, reached: Promise<void>, release: () => void) {
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  const domainId = JSON.parse(added.stdout).id;

  const first = startServeProcess(configFile);
  let crawlId: string;
  try {
    const base = await first.ready;
    crawlId = (await api(base, "POST", "/crawls", { domain_id: domainId, options: { check_fragments: true, scan_images: true } })).data.id;
    await Promise.race([reached, Bun.sleep(15_000)]);
    expect((await api(base, "GET", `/crawls/${crawlId}`)).data.status).toBe("running");
  } finally {
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    release();
  }

  const second = startServeProcess(configFile);
  try {
    const base = await second.ready;
    let crawl: any;
    for (let i = 0; i < 300; i++) {
      crawl = (await api(base, "GET", `/crawls/${crawlId!}`)).data;
      if (crawl.status !== "running" && crawl.status !== "pending") break;
      await Bun.sleep(50);
    }
    const links = (await api(base, "GET", `/crawls/${crawlId!}/links?limit=100`)).data;
    const broken = (await api(base, "GET", `/crawls/${crawlId!}/broken?limit=100`)).data;
    const brokenWith200 = (await api(base, "GET", `/crawls/${crawlId!}/links?status_code=200&is_broken=true`)).meta.total;
    return { crawl, links, broken, brokenWith200 };
  } finally {
    second.proc.kill("SIGTERM");
    await Promise.race([second.proc.exited, Bun.sleep(10_000)]);
  }
}

test("killed while fetching a page for its ids, the crawl resumes and judges every fragment once", async () => {
  let idFetches = 0;
  const reached = signal();
  const released = signal();
  const site = await startLoopbackSite({
    "/": () =>
      html(
        `<img src="/as-image.html" alt="i"> <a href="/a.html#here">ok</a> <a href="/a.html#gone">gone</a> <a href="/a.html#top">top</a> <a href="/slow.html">s</a>`,
      ),
    "/a.html": () => html(`<p id="here">h</p>`),
    "/slow.html": async () => {
      await Bun.sleep(400);
      return html(`<a href="/as-image.html#there">there</a> <a href="/as-image.html#not-there">not there</a>`);
    },
    "/as-image.html": async (request) => {
      // The GET for its ids: the first one never answers (the service is killed meanwhile).
      if (request.method === "GET" && ++idFetches === 1) {
        reached.resolve();
        await Promise.race([released.promise, Bun.sleep(20_000)]);
      }
      return html(`<p id="there">t</p>`);
    },
  });
  sites.push(site);

  const run = await crawlKilledOnce(site, reached.promise, released.resolve);
  expect(idFetches).toBe(2);
  expect(run.crawl).toMatchObject({ status: "completed", broken_links: 2, total_links: 7 });
  expect(run.links.map(row)).toEqual([
    '/ → /as-image.html "i": 200 ok',
    '/ → /a.html#here "ok": 200 ok',
    '/ → /a.html#gone "gone": 200 fragment #gone not found',
    '/ → /a.html#top "top": 200 ok',
    '/ → /slow.html "s": 200 ok',
    '/slow.html → /as-image.html#there "there": 200 ok',
    '/slow.html → /as-image.html#not-there "not there": 200 fragment #not-there not found',
  ]);
  expect(run.broken.map(row)).toEqual([
    '/ → /a.html#gone "gone": 200 fragment #gone not found',
    '/slow.html → /as-image.html#not-there "not there": 200 fragment #not-there not found',
  ]);
  expect(run.brokenWith200).toBe(2);
}, 40_000); // two `serve` processes: one killed in the fragment step, one that finishes it

test("killed while the page its fragments point at is fetched, the crawl resumes with each fragment its own Link", async () => {
  let fetches = 0;
  const reached = signal();
  const released = signal();
  const site = await startLoopbackSite({
    "/": () => html(`<a href="/b.html#present">present fragment</a> <a href="/b.html#absent">absent fragment</a> <a href="/b.html#top">top</a>`),
    "/b.html": async () => {
      // The first GET never answers: the three Links wait for it in the store when the service is killed.
      if (++fetches === 1) {
        reached.resolve();
        await Promise.race([released.promise, Bun.sleep(20_000)]);
      }
      return html(`<h2 id="present">P</h2>`);
    },
  });
  sites.push(site);

  const run = await crawlKilledOnce(site, reached.promise, released.resolve);
  expect(run.crawl).toMatchObject({ status: "completed", broken_links: 1, total_links: 3, pages_crawled: 2 });
  expect(run.links.map(row)).toEqual([
    '/ → /b.html#present "present fragment": 200 ok',
    '/ → /b.html#absent "absent fragment": 200 fragment #absent not found',
    '/ → /b.html#top "top": 200 ok',
  ]);
  expect(run.broken.map(row)).toEqual(['/ → /b.html#absent "absent fragment": 200 fragment #absent not found']);
  expect(run.brokenWith200).toBe(1);
}, 40_000); // two `serve` processes: one killed while a page is held, one that finishes the crawl

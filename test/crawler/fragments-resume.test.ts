import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * A crawl with check_fragments killed (SIGKILL) while it judges its fragments — every target checked, a page
 * still being fetched for its ids — resumes after a restart and judges them from what the store holds: the
 * same verdicts as if it had never stopped, none counted twice.
 */

const KEY = `lp_${"F".repeat(40)}`;
const api = apiClient(KEY);
const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

let site: LoopbackSite;
let dir: string;
let configFile: string;
let idFetches = 0;
let reached: () => void;
const idFetchReached = new Promise<void>((resolve) => (reached = resolve));
let release: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => html(`<img src="/as-image.html" alt="i"> <a href="/a.html#here">ok</a> <a href="/a.html#gone">gone</a> <a href="/slow.html">s</a>`),
    "/a.html": () => html(`<p id="here">h</p>`),
    "/slow.html": async () => {
      await Bun.sleep(400);
      return html(`<a href="/as-image.html#there">there</a> <a href="/as-image.html#not-there">not there</a>`);
    },
    "/as-image.html": async (request) => {
      // The GET for its ids: the first one never answers (the service is killed meanwhile).
      if (request.method === "GET" && ++idFetches === 1) {
        reached();
        await Promise.race([released, Bun.sleep(20_000)]);
      }
      return html(`<p id="there">t</p>`);
    },
  });
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-fragments-resume-"));
  configFile = writeServeConfig(dir, KEY, [], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
});
afterAll(async () => {
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("killed while fetching a page for its ids, the crawl resumes and judges every fragment once", async () => {
  await setUpStore(["--config", configFile]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  const domainId = JSON.parse(added.stdout).id;

  const first = startServeProcess(configFile);
  let crawlId: string;
  try {
    const base = await first.ready;
    crawlId = (await api(base, "POST", "/crawls", { domain_id: domainId, options: { check_fragments: true, scan_images: true } })).data.id;
    await Promise.race([idFetchReached, Bun.sleep(15_000)]);
    expect(idFetches).toBe(1);
    // The first verdicts may already be written; the crawl is still running.
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
    expect(crawl).toMatchObject({ status: "completed", broken_links: 2, total_links: 4 });
    expect(idFetches).toBe(2);
    const broken = (await api(base, "GET", `/crawls/${crawlId!}/broken?limit=100`)).data;
    expect(broken.map((link: any) => `${new URL(link.source_url).pathname} → ${new URL(link.url).pathname} ${link.status_code} ${link.error}`).sort()).toEqual([
      "/ → /a.html 200 fragment #gone not found",
      "/slow.html → /as-image.html 200 fragment #not-there not found",
    ]);
    const counts = await api(base, "GET", `/crawls/${crawlId!}/links?status_code=200&is_broken=true`);
    expect(counts.meta.total).toBe(2);
  } finally {
    second.proc.kill("SIGTERM");
    await Promise.race([second.proc.exited, Bun.sleep(10_000)]);
  }
}, 40_000); // two `serve` processes: one killed in the fragment step, one that finishes it

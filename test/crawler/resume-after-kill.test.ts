import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Durability (issue 3): SIGKILL `linkpatrol serve` in the middle of a crawl, start it again, and the crawl
 * resumes from its stored frontier and ends with exactly the totals (and the very links) of an uninterrupted
 * crawl of the same site. Nothing is lost and nothing is counted twice.
 */

const PAGES = 150;
const KEY = `lp_${"K".repeat(40)}`;
const api = apiClient(KEY);

/** A site of PAGES pages, each linking to three others, a missing page, and an image (every fifth one missing). */
function meshSite(): Promise<LoopbackSite> {
  return startLoopbackSite({}, {
    fallback: async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/") return html(`<a href="/p/0">Start</a>`);
      const page = /^\/p\/(\d+)$/.exec(path);
      if (page !== null) {
        await Bun.sleep(15);
        const i = Number(page[1]);
        const targets = [(i + 1) % PAGES, (i * 7 + 3) % PAGES, (i * 13 + 5) % PAGES];
        return html(
          targets.map((t) => `<a href="/p/${t}">Page ${t}</a>`).join(" ") +
            `<a href="/missing/${i % 20}">Missing</a><img src="/img/${i % 10}.png" alt="Image ${i % 10}">`,
        );
      }
      const image = /^\/img\/(\d+)\.png$/.exec(path);
      if (image !== null && Number(image[1]) % 5 !== 0) return new Response("png", { headers: { "content-type": "image/png" } });
      return new Response("not found", { status: 404 });
    },
  });
}

function html(body: string): Response {
  return new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });
}

let site: LoopbackSite;
let dir: string;
let configFile: string;

beforeAll(async () => {
  site = await meshSite();
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-resume-"));
  configFile = writeServeConfig(dir, KEY, [], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
});
afterAll(async () => {
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});



test("a crawl killed mid-way resumes after restart and ends with the totals of an uninterrupted crawl", async () => {
  // The reference: the same site crawled without interruption.
  let reference: { crawl: any; links: any[] };
  const svc: TestService = await startTestService({ crawler: { allowed_cidrs: ["127.0.0.1/32"], allow_private_networks: false } });
  try {
    const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { scan_images: true });
    reference = { crawl: await waitForCrawl(svc, id, 60_000), links: await readAll(svc, `/crawls/${id}/links`) };
  } finally {
    await svc.stop();
  }
  expect(reference.crawl).toMatchObject({ status: "completed", pages_crawled: PAGES + 1 });

  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  const domainId = JSON.parse(added.stdout).id;

  const first = startServeProcess(configFile);
  let crawlId: string;
  let pagesAtKill = 0;
  try {
    const base = await first.ready;
    crawlId = (await api(base, "POST", "/crawls", { domain_id: domainId, options: { scan_images: true } })).data.id;
    for (let i = 0; i < 400 && pagesAtKill < 40; i++) {
      await Bun.sleep(25);
      pagesAtKill = (await api(base, "GET", `/crawls/${crawlId}`)).data.pages_crawled;
    }
  } finally {
    first.proc.kill("SIGKILL");
    await first.proc.exited;
  }
  expect(pagesAtKill).toBeGreaterThanOrEqual(40);
  expect(pagesAtKill).toBeLessThan(PAGES);

  const second = startServeProcess(configFile);
  try {
    const base = await second.ready;
    const during = (await api(base, "GET", `/crawls/${crawlId!}`)).data;
    expect(during.status).toBe("running");
    expect(during.pages_crawled).toBeGreaterThanOrEqual(pagesAtKill);
    let crawl: any;
    for (let i = 0; i < 600; i++) {
      crawl = (await api(base, "GET", `/crawls/${crawlId!}`)).data;
      if (crawl.status !== "running") break;
      await Bun.sleep(50);
    }
    const { total_links, broken_links, pages_crawled, skipped_links } = reference.crawl;
    expect(crawl).toMatchObject({ status: "completed", total_links, broken_links, pages_crawled, skipped_links, truncated: false });

    const links: any[] = [];
    for (let page = 1; page <= 50; page++) {
      const batch = (await api(base, "GET", `/crawls/${crawlId!}/links?page=${page}&limit=100`)).data;
      links.push(...batch);
      if (batch.length < 100) break;
    }
    const key = (link: any) => `${link.source_url} ${link.url} ${link.status_code} ${link.is_broken} ${link.link_text}`;
    expect(links.map(key).sort()).toEqual(reference.links.map(key).sort());
  } finally {
    second.proc.kill("SIGTERM");
    await Promise.race([second.proc.exited, Bun.sleep(10_000)]);
  }
}, 120_000);

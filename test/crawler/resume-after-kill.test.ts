import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
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

let site: LoopbackSite;
let dir: string;
let configFile: string;

beforeAll(async () => {
  site = await startMeshSite(PAGES);
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

  await setUpStore(["--config", configFile]);

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
}, 30_000); // two `serve` processes: one killed mid-crawl, one that finishes the crawl

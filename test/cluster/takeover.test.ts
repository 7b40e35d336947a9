import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runCli } from "../helpers/cli.ts";
import { clusterNodes, type ClusterNodes } from "../helpers/cluster-nodes.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { apiClient } from "../helpers/serve-process.ts";
import { startTestService } from "../helpers/service.ts";

/**
 * Three `serve` nodes on one PostgreSQL store (issue 43). The node running a crawl is killed with SIGKILL mid-way:
 * another node takes the crawl up within `cluster.lease` + 5 s and finishes it with exactly the totals and links
 * of an uninterrupted crawl of the same site, nothing counted twice. Two nodes asked to start the same domain at
 * the same instant answer one 201 and one 409.
 */

const PAGES = 150;
const LEASE_MS = 5_000;
const KEY = `lp_${"C".repeat(40)}`;
const api = apiClient(KEY);

describe.skipIf(!HAS_POSTGRES)("three nodes on one PostgreSQL store", () => {
  let site: LoopbackSite;
  let nodes: ClusterNodes;
  let db: SQL;
  beforeAll(async () => {
    site = await startMeshSite(PAGES);
    nodes = await clusterNodes(KEY, ["cluster: {lease: 5s}"], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
    db = new SQL(nodes.url, { max: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await nodes?.stopAll();
    await site?.stop();
  });

  /** The node holding crawl `id`'s lease, or null. */
  const holderOf = async (id: string): Promise<string | null> =>
    ((await db`SELECT holder, expires_at FROM work_leases WHERE kind = 'crawl' AND key = ${id}`) as { holder: string; expires_at: string }[])[0]?.holder ??
    null;

  test("a crawl whose node is killed goes on on another node within a lease and ends exact", async () => {
    const svc = await startTestService({ crawler: { allowed_cidrs: ["127.0.0.1/32"], allow_private_networks: false } });
    let reference: { crawl: any; links: any[] };
    try {
      const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { scan_images: true });
      reference = { crawl: await waitForCrawl(svc, id, 60_000), links: await readAll(svc, `/crawls/${id}/links`) };
    } finally {
      await svc.stop();
    }

    const started = { "node-a": nodes.start("node-a"), "node-b": nodes.start("node-b"), "node-c": nodes.start("node-c") };
    const bases = Object.fromEntries(await Promise.all(Object.entries(started).map(async ([name, node]) => [name, await node.ready] as const)));
    const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", nodes.configFile], {
      env: { LINKPATROL_STORAGE_URL: nodes.url },
    });
    expect(added.exitCode).toBe(0);
    const domainId = JSON.parse(added.stdout).id;
    const crawlId = (await api(bases["node-a"]!, "POST", "/crawls", { domain_id: domainId, options: { scan_images: true } })).data.id as string;

    let holder: string | null = null;
    let pagesAtKill = 0;
    for (let i = 0; i < 400 && (holder === null || pagesAtKill < 40); i++) {
      await Bun.sleep(25);
      holder = await holderOf(crawlId);
      pagesAtKill = (await api(bases["node-a"]!, "GET", `/crawls/${crawlId}`)).data.pages_crawled;
    }
    expect(holder).not.toBeNull();
    expect(pagesAtKill).toBeGreaterThanOrEqual(40);
    const victim = started[holder as keyof typeof started];
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    const killedAt = performance.now();
    expect(pagesAtKill).toBeLessThan(PAGES);

    let taker: string | null = null;
    while (performance.now() - killedAt < LEASE_MS + 10_000) {
      taker = await holderOf(crawlId);
      if (taker !== null && taker !== holder) break;
      await Bun.sleep(100);
    }
    const takenAfterMs = performance.now() - killedAt;
    expect(taker).not.toBeNull();
    expect(taker).not.toBe(holder);
    expect(takenAfterMs).toBeLessThan(LEASE_MS + 5_000);

    const survivor = bases[Object.keys(started).find((name) => name !== holder)!]!;
    // The crawl's detail names the node running it now, on any node asked.
    const detail = (await api(survivor, "GET", `/crawls/${crawlId}`)).data;
    if (detail.status === "running") expect(detail.node).toBe(taker);
    let crawl: any;
    for (let i = 0; i < 600; i++) {
      crawl = (await api(survivor, "GET", `/crawls/${crawlId}`)).data;
      if (crawl.status !== "running") break;
      await Bun.sleep(50);
    }
    const { total_links, broken_links, pages_crawled, skipped_links } = reference!.crawl;
    expect(crawl).toMatchObject({ status: "completed", total_links, broken_links, pages_crawled, skipped_links, truncated: false });
    const links: any[] = [];
    for (let page = 1; page <= 50; page++) {
      const batch = (await api(survivor, "GET", `/crawls/${crawlId}/links?page=${page}&limit=100`)).data;
      links.push(...batch);
      if (batch.length < 100) break;
    }
    const key = (link: any) => `${link.source_url} ${link.url} ${link.status_code} ${link.is_broken} ${link.link_text}`;
    expect(links.map(key).sort()).toEqual(reference!.links.map(key).sort());
    // The crawl's lease went with its end.
    expect(await holderOf(crawlId)).toBeNull();

    // Two nodes asked to start the same domain at the same instant: one crawl, one 201 and one 409.
    const [first, second] = Object.values(bases).filter((base) => base !== bases[holder!]) as [string, string];
    const answers = await Promise.all(
      [first, second].map((base) =>
        fetch(`${base}/crawls`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ domain_id: domainId }),
        }).then((res) => res.status),
      ),
    );
    expect(answers.sort()).toEqual([201, 409]);
  }, 120_000);
});

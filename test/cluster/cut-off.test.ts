import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runCli } from "../helpers/cli.ts";
import { clusterNodes, type ClusterNodes } from "../helpers/cluster-nodes.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
import { HAS_POSTGRES, POSTGRES_ADMIN_URL } from "../helpers/postgres.ts";
import { apiClient } from "../helpers/serve-process.ts";

/**
 * A node cut off from the database mid-crawl (its connections ended from the database's side and its role
 * refused new ones), then let back in (issue 43): another node takes the crawl up within a lease; the cut-off node
 * stops writing for it, rejoins when the database answers again, and the crawl ends exactly once with the totals
 * of the site.
 */

const PAGES = 150;
const KEY = `lp_${"X".repeat(40)}`;
const api = apiClient(KEY);

describe.skipIf(!HAS_POSTGRES)("a node cut off from the database", () => {
  let site: LoopbackSite;
  let nodes: ClusterNodes;
  let admin: SQL;
  const role = `lp_node_${Date.now().toString(36)}`;
  beforeAll(async () => {
    site = await startMeshSite(PAGES);
    nodes = await clusterNodes(KEY, ["cluster: {lease: 5s}"], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
    admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
    await admin.unsafe(`CREATE ROLE ${role} LOGIN SUPERUSER`);
  });
  afterAll(async () => {
    await nodes?.stopAll();
    await admin?.unsafe(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
    await admin?.close();
    await site?.stop();
  });

  test("its crawl goes on on another node; when it is let back in it rejoins and writes nothing for that crawl", async () => {
    const viaRole = new URL(nodes.url);
    viaRole.username = role;
    const a = nodes.start("node-a", viaRole.href);
    const baseA = await a.ready;
    const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", nodes.configFile], {
      env: { LINKPATROL_STORAGE_URL: nodes.url },
    });
    expect(added.exitCode).toBe(0);
    const crawlId = (await api(baseA, "POST", "/crawls", { domain_id: JSON.parse(added.stdout).id })).data.id as string;
    const db = new SQL(nodes.url, { max: 1 });
    try {
      const crawlOf = async () => ((await db`SELECT status, pages_crawled, total_links FROM crawls WHERE id = ${crawlId}`) as any[])[0];
      const holderOf = async () => ((await db`SELECT holder, fence FROM work_leases WHERE kind = 'crawl' AND key = ${crawlId}`) as any[])[0];
      for (let i = 0; i < 400 && (await crawlOf()).pages_crawled < 30; i++) await Bun.sleep(25);
      expect((await holderOf()).holder).toBe("node-a");

      // Cut off: node A's connections are ended by the server, and its role may not connect again.
      await admin.unsafe(`ALTER ROLE ${role} NOLOGIN`);
      await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
      const cutAt = performance.now();
      const b = nodes.start("node-b");
      const baseB = await b.ready;
      let taken: any;
      for (let i = 0; i < 200; i++) {
        taken = await holderOf();
        if (taken?.holder === "node-b") break;
        await Bun.sleep(100);
      }
      expect({ ...taken, fence: Number(taken?.fence) }).toMatchObject({ holder: "node-b", fence: 2 });
      expect(performance.now() - cutAt).toBeLessThan(5_000 + 5_000);

      // Let back in: A answers again, and the crawl ends once, exact.
      await admin.unsafe(`ALTER ROLE ${role} LOGIN`);
      let crawl: any;
      for (let i = 0; i < 600; i++) {
        crawl = (await api(baseB, "GET", `/crawls/${crawlId}`)).data;
        if (crawl.status !== "running") break;
        await Bun.sleep(50);
      }
      expect(crawl).toMatchObject({ status: "completed", pages_crawled: PAGES + 1 });
      const health = async () => (await fetch(`${baseA.replace(/\/v1$/, "")}/healthz`, { signal: AbortSignal.timeout(5_000) })).status;
      let status = await health();
      for (let i = 0; i < 100 && status !== 200; i++) {
        await Bun.sleep(100);
        status = await health();
      }
      expect(status).toBe(200);
      expect((await api(baseA, "GET", `/crawls/${crawlId}`)).data).toMatchObject({ status: "completed", total_links: crawl.total_links });
      // Node A's half-done job wrote nothing after the takeover: the counts are those of one whole crawl.
      const links = ((await db`SELECT count(*)::int AS n FROM links WHERE crawl_id = ${crawlId}`) as { n: number }[])[0]!.n;
      expect(links).toBe(crawl.total_links);
    } finally {
      await db.close();
    }
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runCli } from "../helpers/cli.ts";
import { clusterNodes, type ClusterNodes } from "../helpers/cluster-nodes.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { apiClient } from "../helpers/serve-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Exactly once where users see it, on three `serve` nodes over one PostgreSQL store (issue 43): a schedule every
 * 2 seconds fires once per due time across the nodes, and every webhook event is one delivery, one delivery id,
 * however the attempts went, with one node SIGKILLed while deliveries were in flight.
 */

const KEY = `lp_${"E".repeat(40)}`;
const api = apiClient(KEY);

describe.skipIf(!HAS_POSTGRES)("three nodes: each scheduled run once, each webhook event once", () => {
  let site: LoopbackSite;
  let receiver: WebhookReceiver;
  let nodes: ClusterNodes;
  let db: SQL;
  beforeAll(async () => {
    site = await startLoopbackSite({ "/": { body: "<a href='/a'>a</a> <a href='/gone'>gone</a>" }, "/a": { body: "a" }, "/gone": { status: 410 } });
    receiver = await startWebhookReceiver({ tls: false });
    nodes = await clusterNodes(KEY, [
      "cluster: {lease: 5s}",
      "webhooks: {allow_http: true, allow_private_targets: true, retry_schedule: [1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s]}",
    ]);
    db = new SQL(nodes.url, { max: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await nodes?.stopAll();
    await receiver?.stop();
    await site?.stop();
  });

  test("a 2-second schedule on three nodes, one killed mid-way: one crawl per due time, one delivery id per event", async () => {
    const started = [nodes.start("node-a"), nodes.start("node-b"), nodes.start("node-c")];
    const bases = await Promise.all(started.map((node) => node.ready));
    const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", nodes.configFile], {
      env: { LINKPATROL_STORAGE_URL: nodes.url },
    });
    expect(added.exitCode).toBe(0);
    const domainId = JSON.parse(added.stdout).id as string;
    const hook = (await api(bases[0]!, "POST", "/webhooks", { url: receiver.url("/hook") })).data;
    receiver.useSecret(hook.secret);
    // Slow answers keep attempts in flight when a node dies.
    receiver.script(...Array.from({ length: 200 }, () => ({ delayMs: 300 })));
    expect((await api(bases[1]!, "PATCH", `/domains/${domainId}`, { schedule: "*/2 * * * * *" })).data.schedule).toBe("*/2 * * * * *");

    await Bun.sleep(7_000);
    const killedAt = new Date().toISOString();
    started[0]!.proc.kill("SIGKILL");
    await started[0]!.proc.exited;
    await Bun.sleep(5_000);
    expect((await api(bases[2]!, "PATCH", `/domains/${domainId}`, { schedule: null })).data.schedule).toBeNull();

    // Every crawl the schedule started ends; then every event of every crawl reaches the receiver.
    const scheduled = async () =>
      (await db`SELECT id, status, created_at FROM crawls WHERE domain_id = ${domainId} AND trigger = 'schedule' ORDER BY created_at`) as {
        id: string;
        status: string;
        created_at: string;
      }[];
    for (let i = 0; i < 300 && (await scheduled()).some((crawl) => crawl.status === "pending" || crawl.status === "running"); i++) await Bun.sleep(100);
    const crawls = await scheduled();
    expect(crawls.length).toBeGreaterThanOrEqual(3);
    expect(crawls.every((crawl) => crawl.status === "completed")).toBe(true);

    // One run per due time: as many crawls as due times fired, each due time fired by one node.
    const runs = (await db`SELECT due_at, node, fired_at FROM schedule_runs WHERE domain_id = ${domainId} ORDER BY fired_at`) as {
      due_at: string;
      node: string;
      fired_at: string;
    }[];
    expect(new Set(runs.map((run) => run.due_at)).size).toBe(runs.length);
    // A due time that came while the domain's crawl still ran (a takeover takes up to a lease) fired no crawl
    // (skipped, logged): never more crawls than runs, and each crawl the run just before it, none two.
    expect(crawls.length).toBeLessThanOrEqual(runs.length);
    const runOf = (crawl: { created_at: string }) => runs.filter((run) => Date.parse(run.fired_at) <= Date.parse(crawl.created_at) + 500).at(-1)?.due_at;
    const firing = crawls.map(runOf);
    expect(firing.every((due) => due !== undefined)).toBe(true);
    expect(new Set(firing).size).toBe(crawls.length);
    // The schedule went on firing on the nodes left after the kill.
    expect(runs.some((run) => run.fired_at > killedAt && run.node !== "node-a")).toBe(true);

    const deliveries = (await db`SELECT id, event, payload FROM webhook_deliveries WHERE webhook_id = ${hook.id}`) as {
      id: string;
      event: string;
      payload: string;
    }[];
    // Each crawl's events were queued once: started, completed and broken_links.found (its /gone link).
    expect(deliveries.length).toBe(crawls.length * 3);
    const eventOf = (delivery: { event: string; payload: string }) =>
      `${delivery.event} ${JSON.parse(delivery.payload).data.crawl_id ?? JSON.parse(delivery.payload).data.id}`;
    expect(new Set(deliveries.map(eventOf)).size).toBe(deliveries.length);
    await receiver.waitFor((requests) => new Set(requests.map((r) => r.headers["x-service-delivery"])).size >= deliveries.length, 30_000);
    // Every request carried one of those delivery ids, and each event arrived under its own id only.
    const ids = new Set(deliveries.map((delivery) => delivery.id));
    expect(receiver.requests.every((request) => ids.has(request.headers["x-service-delivery"] ?? ""))).toBe(true);
    const idsByEvent = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const key = `${request.headers["x-service-event"]} ${JSON.parse(request.rawBody.toString()).data.crawl_id ?? JSON.parse(request.rawBody.toString()).data.id}`;
      idsByEvent.set(key, (idsByEvent.get(key) ?? new Set()).add(request.headers["x-service-delivery"]!));
    }
    expect([...idsByEvent.values()].every((set) => set.size === 1)).toBe(true);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runCli } from "../helpers/cli.ts";
import { clusterNodes, type ClusterNodes } from "../helpers/cluster-nodes.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * Keys and GET answers kept by a node of a PostgreSQL store, under the server's snapshot
 * (store/postgres/snapshot-version.ts): a node answers from what it kept while nothing has committed anywhere, and
 * the very next request after another node's write, or a key revoked beside the cluster, reads the store again.
 * Rate limits are off here: with them on, every request commits its take and nothing is kept (docs/decisions.md).
 */

const KEY = `lp_${"K".repeat(40)}`;

/** A GET with `key` that gives up after `timeoutMs` (a request stuck behind a table lock). */
async function get(base: string, path: string, key = KEY, timeoutMs = 5_000): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.json() };
}

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  return { status: res.status, body: await res.json() };
}

const names = (body: any): string[] => body.data.map((domain: { name: string }) => domain.name).sort();

describe.skipIf(!HAS_POSTGRES)("two nodes keep keys and answers only while nothing commits", () => {
  let nodes: ClusterNodes;
  let db: SQL;
  let a: string;
  let b: string;
  beforeAll(async () => {
    nodes = await clusterNodes(KEY, ["cluster: {lease: 60s}"]);
    db = new SQL(nodes.url, { max: 2 });
    [a, b] = await Promise.all([
      nodes.start("node-a", undefined, { LINKPATROL_AUTH_RATE_LIMIT: "0" }).ready,
      nodes.start("node-b", undefined, { LINKPATROL_AUTH_RATE_LIMIT: "0" }).ready,
    ]);
  }, 30_000);
  afterAll(async () => {
    await db?.close();
    await nodes?.stopAll();
  });

  test("a node answers from what it kept while the domains table is locked, so long as nothing committed", async () => {
    expect((await post(a, "/domains", { name: "kept-one.example" })).status).toBe(201);
    // The key's first use on node B is written (last_used_at), a commit: made before the rounds.
    expect((await get(b, "/domains")).status).toBe(200);
    // A node's own background writes (its heartbeat) may commit between two requests: such a round is tried again.
    let served = false;
    for (let round = 0; round < 5 && !served; round++) {
      const before = await db`SELECT CAST(pg_current_snapshot() AS text) AS snapshot`;
      const warm = await get(b, "/domains");
      expect(warm.status).toBe(200);
      expect(names(warm.body)).toEqual(["kept-one.example"]);
      const locker = await db.reserve();
      try {
        await locker`BEGIN`;
        await locker`LOCK TABLE domains IN ACCESS EXCLUSIVE MODE`;
        const kept = await get(b, "/domains", KEY, 2_000).catch(() => null);
        const after = await db`SELECT CAST(pg_current_snapshot() AS text) AS snapshot`;
        if (after[0].snapshot !== before[0].snapshot) continue;
        // Nothing committed from before the warm-up to now: the kept answer must have come back, not a wait.
        expect(kept?.status).toBe(200);
        expect(names(kept!.body)).toEqual(["kept-one.example"]);
        served = true;
      } finally {
        await locker`ROLLBACK`;
        locker.release();
      }
    }
    expect(served).toBe(true);
  }, 40_000);

  test("a domain added through one node is in the other's very next answer", async () => {
    for (let i = 0; i < 3; i++) expect((await get(b, "/domains")).status).toBe(200);
    const before = names((await get(b, "/domains")).body);
    expect((await post(a, "/domains", { name: "kept-two.example" })).status).toBe(201);
    expect(names((await get(b, "/domains")).body)).toEqual([...before, "kept-two.example"].sort());
    expect((await post(b, "/domains", { name: "kept-three.example" })).status).toBe(201);
    expect(names((await get(a, "/domains")).body)).toEqual([...before, "kept-two.example", "kept-three.example"].sort());
  }, 20_000);

  test("connections ended by the server (the token's own too): answers come back, and are fresh", async () => {
    expect((await get(b, "/domains")).status).toBe(200);
    await db`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
    // The pools connect again; a request caught on a dead connection may fail once, none afterwards.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await get(b, "/domains").catch(() => ({ status: 0 }))).status;
      if (status !== 200) await Bun.sleep(100);
    }
    expect(status).toBe(200);
    const before = names((await get(b, "/domains")).body);
    expect((await post(a, "/domains", { name: "kept-four.example" })).status).toBe(201);
    expect(names((await get(b, "/domains")).body)).toEqual([...before, "kept-four.example"].sort());
  }, 30_000);

  test("a key revoked beside the cluster is refused by both nodes at their very next request", async () => {
    const env = { env: { LINKPATROL_STORAGE_URL: nodes.url } };
    const created = await runCli(["keys", "create", "--name", "reader", "--scopes", "domains:read", "--json", "--config", nodes.configFile], env);
    expect(created.exitCode).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string };
    for (let i = 0; i < 3; i++) for (const base of [a, b]) expect((await get(base, "/domains", key.key)).status).toBe(200);
    const revoked = await runCli(["keys", "revoke", key.id, "--config", nodes.configFile], env);
    expect(revoked.exitCode).toBe(0);
    for (const base of [b, a]) {
      const refused = await get(base, "/domains", key.key);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe("unauthorized");
    }
  }, 30_000);
});

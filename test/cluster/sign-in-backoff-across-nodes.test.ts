import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { clusterNodes, type ClusterNodes } from "../helpers/cluster-nodes.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { DashboardClient, type Page } from "../ui/dashboard-client.ts";

/**
 * Two `serve` nodes on one PostgreSQL store (issue 43): wrong keys at the sign-in form, spread over both nodes as a
 * load balancer spreads them, back off as they do on one appliance (test/ui/sign-in-backoff.test.ts): six failures
 * answered 401, the seventh attempt 429 without its key being checked, whichever node it reaches. Counted per node,
 * neither node would have seen more than four.
 */

const KEY = `lp_${"S".repeat(40)}`;
const wrongKey = (i: number) => `lp_${String(i).padStart(8, "0")}${"x".repeat(32)}`;

/** One sign-in with `key` through `client`'s node from `address` (behind the trusted proxy): the form, then the POST. */
async function attempt(client: DashboardClient, key: string, address: string): Promise<Page> {
  const headers = { "x-forwarded-for": address };
  const form = await client.get("/ui/sign-in", headers);
  const token = /name="_token" value="([^"]+)"/.exec(form.html)?.[1] ?? "";
  return client.post("/ui/sign-in", { _token: token, key, _csrf: null }, headers);
}

describe.skipIf(!HAS_POSTGRES)("the sign-in backoff on two nodes of one PostgreSQL store", () => {
  let nodes: ClusterNodes;
  let origins: string[];
  /** A fresh browser on each node. */
  const browsers = () => origins.map((origin) => new DashboardClient(origin));
  beforeAll(async () => {
    // Behind a trusted proxy (the tests' own address), so a test can be many client addresses.
    nodes = await clusterNodes(KEY, ["server: {host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1]}"]);
    const bases = await Promise.all([nodes.start("node-a").ready, nodes.start("node-b").ready]);
    origins = bases.map((base) => base.replace(/\/v1$/, ""));
  }, 60_000);
  afterAll(() => nodes?.stopAll());

  test("guesses alternating between the nodes are counted together: the seventh is refused, on either node", async () => {
    const clients = browsers();
    const statuses: number[] = [];
    let refused: Page | undefined;
    for (let i = 0; i < 8; i++) {
      const page = await attempt(clients[i % 2]!, wrongKey(i), "203.0.113.1");
      statuses.push(page.status);
      refused ??= page.status === 429 ? page : undefined;
    }
    expect(statuses.slice(0, 7)).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect(statuses[7]).toBe(429);
    expect(refused!.html).toContain("Too many failed sign-ins");
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The right key from that address waits too, on both nodes; from another address it is heard.
    expect((await attempt(clients[0]!, KEY, "203.0.113.1")).status).toBe(429);
    expect((await attempt(clients[1]!, KEY, "203.0.113.1")).status).toBe(429);
    expect((await attempt(clients[1]!, KEY, "203.0.113.2")).status).toBe(303);
  }, 30_000);

  test("guesses at one key's prefix from many addresses, over both nodes, back off; another prefix does not", async () => {
    const clients = browsers();
    const target = KEY.slice(0, 11);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const page = await attempt(clients[i % 2]!, `${target}${String(i).padStart(32, "z")}`, `198.51.100.${i + 1}`);
      statuses.push(page.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    // The key itself waits too, from a fresh address, on either node: the attack is on it.
    expect((await attempt(clients[0]!, KEY, "198.51.100.200")).status).toBe(429);
    expect((await attempt(clients[1]!, `lp_${"q".repeat(40)}`, "198.51.100.201")).status).toBe(401);
  }, 30_000);
});

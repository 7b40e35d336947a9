import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { Hono } from "hono";
import { errorResponse } from "../../src/api/error-envelope.ts";
import { authenticate } from "../../src/api/middleware/auth/auth.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { AppEnv } from "../../src/http/env.ts";
import { rateLimit, RateLimiter } from "../../src/http/rate-limit.ts";
import { SharedTokenBuckets } from "../../src/http/shared-buckets.ts";
import { KeysService } from "../../src/services/keys.service.ts";
import { KeysRepo } from "../../src/store/keys.repo.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { RateBucketsRepo } from "../../src/store/rate-buckets.repo.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * Rate limits across nodes (issue 43): two API nodes over one PostgreSQL database, each with its own client, built
 * from the app's own parts (authenticate, rateLimit, the error envelope): one key's requests spread over both are
 * allowed `rate_limit` in total, sequentially and at once, with RateLimit-Remaining counting the shared bucket.
 * The clock is held still, so no token refills while the test runs and the totals are exact.
 */

const T0 = Date.UTC(2026, 10, 28, 12);
const LIMIT = 10;

interface Node {
  app: Hono<AppEnv>;
  client: SQL;
  keys: KeysService;
}

async function startNode(url: string, clock: () => number): Promise<Node> {
  const client = await connectPostgres(url, { bigint: true, max: 4 });
  const db = new PostgresDb(client);
  const keys = new KeysService(new KeysRepo(db));
  const repo = new RateBucketsRepo(db);
  const limiter = new RateLimiter({ requestsPerMinute: LIMIT, publicPaths: [], shared: (capacity) => new SharedTokenBuckets(repo, capacity, 60_000, clock) });
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("clientAddress", "127.0.0.1");
    await next();
  });
  app.use("*", authenticate(keys));
  app.use("*", rateLimit(limiter));
  app.get("/v1/ping", (c) => c.json({ data: "pong" }));
  app.onError((error, c) => errorResponse(c, error, silentLogger));
  return { app, client, keys };
}

describe.skipIf(!HAS_POSTGRES)("rate limits across two nodes on one PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let nodes: Node[] = [];
  let now = T0;
  beforeAll(async () => {
    database = await freshDatabase();
    const setup = await connectPostgres(database.url, { max: 1 });
    await migratePostgres(setup);
    await setup.close();
    nodes = await Promise.all([startNode(database.url, () => now), startNode(database.url, () => now)]);
  });
  afterAll(async () => {
    for (const node of nodes) await node.client.close();
    await database?.drop();
  });

  const ask = (node: Node, secret: string) => node.app.request("http://node/v1/ping", { headers: { Authorization: `Bearer ${secret}` } });

  test("alternating between the nodes: the limit in total, Remaining counting down across both, then 429 on both", async () => {
    const { secret } = await nodes[0]!.keys.create("script");
    const answers = [];
    for (let i = 0; i < 2 * LIMIT; i++) answers.push(await ask(nodes[i % 2]!, secret));
    expect(answers.map((r) => r.status)).toEqual([...Array(LIMIT).fill(200), ...Array(LIMIT).fill(429)]);
    expect(answers.slice(0, LIMIT).map((r) => r.headers.get("RateLimit-Remaining"))).toEqual(Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)));
    const refused = answers.at(-1)!;
    expect(refused.headers.get("RateLimit-Limit")).toBe(String(LIMIT));
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
    expect(refused.headers.get("RateLimit-Reset")).toBe("60");
    expect(refused.headers.get("Retry-After")).toBe("6");
    expect((await refused.json()).error.code).toBe("rate_limited");
    // Six seconds on, one token for the pair, whichever node is asked first.
    now += 6_000;
    expect([(await ask(nodes[1]!, secret)).status, (await ask(nodes[0]!, secret)).status]).toEqual([200, 429]);
  });

  test("at once on both nodes: exactly the limit allowed, each Remaining given once", async () => {
    const { secret } = await nodes[1]!.keys.create("burst");
    const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => ask(nodes[i % 2]!, secret)));
    const allowed = answers.filter((r) => r.status === 200);
    expect(allowed).toHaveLength(LIMIT);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(2 * LIMIT);
    expect(allowed.map((r) => Number(r.headers.get("RateLimit-Remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
  });

  test("the buckets' table is unlogged: a take waits for no flush of the write-ahead log", async () => {
    const [row] = (await nodes[0]!.client`SELECT relpersistence FROM pg_class WHERE relname = 'rate_buckets'`) as { relpersistence: string }[];
    expect(row!.relpersistence).toBe("u");
  });

  test("when the store cannot answer, the node's own bucket decides (limited per node)", async () => {
    const client = await connectPostgres(database.url, { bigint: true, max: 1 });
    const buckets = new SharedTokenBuckets(new RateBucketsRepo(new PostgresDb(client)), 2, 60_000, () => now);
    await client.close();
    const decisions = [await buckets.take("key:k"), await buckets.take("key:k"), await buckets.take("key:k")];
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });
});

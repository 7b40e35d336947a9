/**
 * What a rate limit shared through PostgreSQL adds to an API request (issue 43; bench/README.md, "Rate limits
 * across nodes"). A server process per mode answers `GET /v1/ping` behind the app's real `rateLimit` middleware
 * (the principal set by a stand-in for the key check, so only the limiter differs), over loopback HTTP, the client
 * in this process: `memory` (the appliance's buckets) or `shared` (one atomic statement per request on a fresh
 * PostgreSQL database). Per round: 2,000 requests one at a time (p50/p99) and 10,000 with 16 in flight (req/s),
 * all of one key (every take on one row: the worst case for row locks) and spread over 16 keys.
 *
 *   bun bench/shared-rate-limit.ts [rounds]        (default 3; needs PostgreSQL at LINKPATROL_TEST_POSTGRES)
 */
import { Hono } from "hono";
import type { AppEnv } from "../src/http/env.ts";
import { rateLimit, RateLimiter } from "../src/http/rate-limit.ts";
import { SharedTokenBuckets } from "../src/http/shared-buckets.ts";
import { connectPostgres } from "../src/store/postgres/connect.ts";
import { migratePostgres } from "../src/store/postgres/migrate.ts";
import { PostgresDb } from "../src/store/postgres/postgres-db.ts";
import { RateBucketsRepo } from "../src/store/rate-buckets.repo.ts";
import { freshDatabase } from "../test/helpers/postgres.ts";

const PER_MINUTE = 1_000_000_000; // never refuses: the cost of a take, not of a 429

async function serve(mode: string, url: string): Promise<void> {
  const shared = mode === "shared" ? await connectPostgres(url, { bigint: true, max: 8 }).then((client) => new RateBucketsRepo(new PostgresDb(client))) : null;
  const limiter = new RateLimiter({
    requestsPerMinute: PER_MINUTE,
    publicPaths: [],
    shared: shared === null ? undefined : (capacity) => new SharedTokenBuckets(shared, capacity),
  });
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("clientAddress", "127.0.0.1");
    c.set("principal", { keyId: c.req.header("X-Key") ?? "k0", name: "bench", scopes: ["admin"] } as never);
    await next();
  });
  app.use("*", rateLimit(limiter));
  app.get("/v1/ping", (c) => c.json({ data: "pong" }));
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  console.log(server.port);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(base: string, keys: number): Promise<{ p50: number; p99: number; rps: number }> {
  const ask = async (i: number) => {
    const response = await fetch(`${base}/v1/ping`, { headers: { "X-Key": `k${i % keys}` } });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 300; i++) await ask(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const start = performance.now();
    await ask(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < 10_000) await ask(next++);
    }),
  );
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), rps: 10_000 / ((performance.now() - started) / 1000) };
}

if (process.argv[2] === "--serve") {
  await serve(process.argv[3]!, process.argv[4]!);
} else {
  const rounds = Number(process.argv[2] ?? 3);
  const database = await freshDatabase();
  const setup = await connectPostgres(database.url, { max: 1 });
  await migratePostgres(setup);
  // LOGGED=1: the table in the write-ahead log, to measure what leaving it out (schema-from-snapshot.ts) saves.
  if (process.env.LOGGED === "1") await setup.unsafe("ALTER TABLE rate_buckets SET LOGGED");
  await setup.close();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ["memory", "shared"]) {
        const child = Bun.spawn(["bun", import.meta.path, "--serve", mode, database.url], { stdout: "pipe", stderr: "inherit" });
        const reader = child.stdout.getReader();
        const port = new TextDecoder().decode((await reader.read()).value).trim();
        for (const keys of [1, 16]) {
          const { p50, p99, rps } = await measure(`http://127.0.0.1:${port}`, keys);
          console.log(
            `round ${round} ${mode.padEnd(6)} keys ${String(keys).padStart(2)}: one at a time p50 ${(p50 * 1000).toFixed(0)} µs, p99 ${(p99 * 1000).toFixed(0)} µs; 16 in flight ${rps.toFixed(0)} req/s`,
          );
        }
        child.kill();
        await child.exited;
      }
    }
  } finally {
    await database.drop();
  }
}

/**
 * The API-load mix's rotation (bench/lib/load-generators.ts, bench/api-load.ts): each load generator, run as
 * the bench runs it against a server on 127.0.0.1, sends every path of the rotation with the bearer key and
 * reports what it sent. A generator that is not installed (wrk: a system package; autocannon: bench/node_modules)
 * is skipped with its test, saying so; under CI=true it fails instead (.ci/run installs both).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mixPaths } from "../../bench/api-load.ts";
import { loadGenerator } from "../../bench/lib/load-generators.ts";

const KEY = "lp_test-load-mix-key";
const hits = new Map<string, number>();
let unauthorised = 0;
let server: ReturnType<typeof Bun.serve>;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-load-mix-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${KEY}`) unauthorised++;
      const path = url.pathname + url.search;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      return Response.json({ data: [] });
    },
  });
});
afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

test("the mix rotates over the crawl list, a detail, both crawls' broken links and link pages", () => {
  const paths = mixPaths("RUN", "DONE", 500);
  expect(paths).toContain("/v1/crawls?limit=20");
  expect(paths).toContain("/v1/crawls/RUN");
  for (const crawl of ["RUN", "DONE"]) {
    expect(paths).toContain(`/v1/crawls/${crawl}/broken?limit=100`);
    expect(paths).toContain(`/v1/crawls/${crawl}/links?page=1&limit=100`);
    expect(paths).toContain(`/v1/crawls/${crawl}/links?page=500&limit=100`);
  }
  expect(new Set(paths).size).toBe(paths.length);
});

for (const name of ["wrk", "autocannon"] as const) {
  const generator = loadGenerator(name);
  if (generator === null && process.env.CI === "true") throw new Error(`${name} is not installed under CI=true: .ci/run installs wrk and bench/node_modules`);
  if (generator === null) console.warn(`load-mix: ${name} SKIPPED: not installed (apt-get install wrk; npm ci --prefix bench)`);
  test.skipIf(generator === null)(
    `${name} sends every path of the rotation, with the key`,
    async () => {
      hits.clear();
      unauthorised = 0;
      const paths = mixPaths("RUN", "DONE", 7);
      const origin = `http://127.0.0.1:${server.port}`;
      const result = await generator!.runMix(origin, paths, { connections: 4, threads: 2, seconds: 1, key: KEY, dir, label: `mix-${name}` });
      expect(result.requests).toBeGreaterThan(paths.length);
      expect({ non_2xx: result.non_2xx, errors: result.errors }).toEqual({ non_2xx: 0, errors: 0 });
      expect(unauthorised).toBe(0);
      for (const path of paths) expect({ path, sent: (hits.get(path) ?? 0) > 0 }).toEqual({ path, sent: true });
      expect([...hits.keys()].every((path) => paths.includes(path))).toBe(true);
    },
    15_000,
  ); // a 1 s load run in a child process, plus its start-up (autocannon: Node.js)

  test.skipIf(generator === null)(
    `${name} with a rate offers about that many requests a second, not as many as answered`,
    async () => {
      hits.clear();
      const paths = mixPaths("RUN", "DONE", 7);
      const origin = `http://127.0.0.1:${server.port}`;
      // 4 connections at 20 requests/s in all: each waits 200 ms between requests, ~40 in 2 s (thousands unpaced).
      const result = await generator!.runMix(origin, paths, { connections: 4, threads: 2, seconds: 2, key: KEY, dir, label: `rate-${name}`, rate: 20 });
      expect({ non_2xx: result.non_2xx, errors: result.errors }).toEqual({ non_2xx: 0, errors: 0 });
      expect(result.requests).toBeGreaterThanOrEqual(8);
      expect(result.requests).toBeLessThanOrEqual(80);
    },
    15_000,
  ); // a 2 s load run in a child process, plus its start-up
}

/**
 * Benchmarks of the appliance as a user runs it (`make bench`, which builds dist/linkpatrol first):
 *   - binary size;
 *   - start-up: from exec to the first 200 from /healthz, on an empty store and on a migrated one;
 *   - memory: RSS at idle after start, and after a burst of authenticated API requests;
 *   - API throughput: authenticated GET /v1/domains over keep-alive connections from this process, with the
 *     default logging (one info line per request, written to a discarded stderr).
 * Loopback only; every loop is bounded. Prints a Markdown table for bench/README.md.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const binary = join(import.meta.dir, "..", "dist", "linkpatrol");
const STARTS = 10;
const REQUESTS = 5_000;
const CONCURRENCY = 16;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function waitHealthy(origin: string, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    try {
      if ((await fetch(`${origin}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(2);
  }
  throw new Error("server did not become healthy in time");
}

async function startServer(dir: string, port: number) {
  const started = performance.now();
  const proc = Bun.spawn({
    cmd: [binary, "serve"],
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      LINKPATROL_SERVER_HOST: "127.0.0.1",
      LINKPATROL_SERVER_PORT: String(port),
      LINKPATROL_AUTH_RATE_LIMIT: "0",
      LINKPATROL_AUTH_BOOTSTRAP_KEY: `lp_${"b".repeat(40)}`,
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitHealthy(origin, Date.now() + 15_000);
  return { proc, origin, startupMs: performance.now() - started };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const rows: [string, string][] = [];
rows.push(["binary size", `${(statSync(binary).size / 1024 / 1024).toFixed(1)} MiB`]);

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-bench-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
try {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    rmSync(join(dir, "data"), { recursive: true, force: true });
    const first = await startServer(dir, port);
    cold.push(first.startupMs);
    first.proc.kill("SIGTERM");
    await first.proc.exited;
    const second = await startServer(dir, port);
    warm.push(second.startupMs);
    second.proc.kill("SIGTERM");
    await second.proc.exited;
  }
  rows.push([`start-up to first /healthz 200, empty store (median of ${STARTS})`, `${median(cold).toFixed(0)} ms`]);
  rows.push([`start-up to first /healthz 200, migrated store (median of ${STARTS})`, `${median(warm).toFixed(0)} ms`]);

  const server = await startServer(dir, port);
  await Bun.sleep(1_000);
  rows.push(["RSS at idle (1 s after start)", `${rssMiB(server.proc.pid).toFixed(1)} MiB`]);

  const headers = { authorization: `Bearer lp_${"b".repeat(40)}` };
  for (let i = 0; i < 20; i++) {
    await fetch(`${server.origin}/v1/domains`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: `site${i}.example` }),
    });
  }
  let next = 0;
  const latencies: number[] = [];
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const t = performance.now();
        const res = await fetch(`${server.origin}/v1/domains?limit=20`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  rows.push([
    `GET /v1/domains (20 items), ${CONCURRENCY} concurrent, ${REQUESTS} requests`,
    `${(REQUESTS / seconds).toFixed(0)} req/s, p50 ${median(latencies).toFixed(2)} ms, p99 ${[...latencies].sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)]!.toFixed(2)} ms`,
  ]);
  rows.push(["RSS after the request burst", `${rssMiB(server.proc.pid).toFixed(1)} MiB`]);
  server.proc.kill("SIGTERM");
  await server.proc.exited;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log("| measure | value |\n|---|---|");
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);

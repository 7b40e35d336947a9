/**
 * HTTP load generators for the API-load runs, behind one shape: closed-loop, `connections` connections for
 * `seconds`, one URL with a bearer key, each in its own process. wrk (Debian package `wrk`, C, epoll) is
 * preferred: it needs a fraction of the CPU autocannon (Node.js) does at the same request rate, and the load
 * generator shares the machine's two cores with the service and its crawl. autocannon (bench/node_modules)
 * is the fallback where wrk is not installed. `runMix` rotates each connection over a list of paths (wrk: a Lua
 * `request` hook written at run time; autocannon: its `requests` sequence through its API), for a latency figure
 * of a realistic mix rather than of one endpoint.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { firstLine, runMeasured, tail } from "./proc.ts";

export const AUTOCANNON_CLI = join(import.meta.dir, "..", "node_modules", "autocannon", "autocannon.js");

/** One endpoint under load. Latencies in milliseconds (wrk: to the microsecond; autocannon: whole ms). */
export interface LoadResult {
  req_per_s: number;
  requests: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  key: string;
  dir: string;
  label: string;
  /** Sent as Accept-Encoding (as most HTTP clients do: "gzip"); none when absent. */
  acceptEncoding?: string;
  /** Requests/s offered in all (runMix only): each connection waits connections ÷ rate between requests; absent: none. */
  rate?: number;
}

export interface LoadGenerator {
  name: "wrk" | "autocannon";
  version: string | null;
  run(url: string, o: LoadOptions): Promise<LoadResult>;
  /** Load on `origin` with every connection rotating over `paths` (wrk with `threads` threads). */
  runMix(origin: string, paths: readonly string[], o: LoadOptions & { threads: number }): Promise<LoadResult>;
}

/** wrk's summary as JSON, from its `done` hook (latencies in microseconds). */
const WRK_REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"duration_us":%d,"requests":%d,"p50":%f,"p90":%f,"p99":%f,"max":%f,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.duration, summary.requests, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;

const ms = (us: number) => Math.round(us / 10) / 100;

/** wrk prints its version with its usage and exits 1, so firstLine() (which wants exit 0) cannot read it. */
function wrkVersion(): string | null {
  const out = Bun.spawnSync(["wrk", "--version"], { stdout: "pipe", stderr: "pipe" });
  return /^wrk (\S+)/m.exec(`${out.stdout}${out.stderr}`)?.[1] ?? null;
}

/**
 * A wrk `request` hook that rotates over `paths` (each thread has its own Lua state and counter, so each thread
 * goes round the whole list; wrk.format adds the -H headers).
 */
function wrkRotation(paths: readonly string[]): string {
  return `
local paths = { ${paths.map((path) => JSON.stringify(path)).join(", ")} }
local next_path = 0
request = function()
  next_path = next_path % #paths + 1
  return wrk.format("GET", paths[next_path])
end
`;
}

/** A wrk `delay` hook: every connection waits `seconds` after each answer before its next request. */
function wrkDelay(seconds: number): string {
  return `
delay = function()
  return ${Math.max(1, Math.round(seconds * 1000))}
end
`;
}

/** Runs wrk with a Lua script (the report hook plus `extra`) and reads the report line. */
async function runWrk(url: string, o: LoadOptions & { threads: number }, extra = ""): Promise<LoadResult> {
  const script = join(o.dir, `wrk-${o.label}.lua`);
  writeFileSync(script, WRK_REPORT + extra);
  const stdoutPath = join(o.dir, `wrk-${o.label}.out`);
  const stderrPath = join(o.dir, `wrk-${o.label}.err`);
  const cmd = ["wrk", `-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, "--timeout", "10s", "-s", script, "-H", `Authorization: Bearer ${o.key}`];
  if (o.acceptEncoding !== undefined) cmd.push("-H", `Accept-Encoding: ${o.acceptEncoding}`);
  cmd.push(url);
  const measured = await runMeasured(cmd, { cwd: o.dir, timeoutS: o.seconds + 60, stdoutPath, stderrPath });
  const line = readFileSync(stdoutPath, "utf8")
    .split("\n")
    .find((l) => l.startsWith("{"));
  if (measured.exit_code !== 0 || line === undefined) throw new Error(`wrk exit ${measured.exit_code ?? measured.signal}: ${tail(stderrPath, 5)}`);
  const r = JSON.parse(line);
  return {
    req_per_s: Math.round(r.requests / (r.duration_us / 1e6)),
    requests: r.requests,
    p50_ms: ms(r.p50),
    p90_ms: ms(r.p90),
    p99_ms: ms(r.p99),
    max_ms: ms(r.max),
    non_2xx: r.status,
    errors: r.connect + r.read + r.write + r.timeout,
    timeouts: r.timeout,
  };
}

function wrk(): LoadGenerator {
  return {
    name: "wrk",
    version: wrkVersion(),
    run: (url, o) => runWrk(url, { ...o, threads: 1 }),
    runMix: (origin, paths, o) => runWrk(`${origin}${paths[0]}`, o, wrkRotation(paths) + (o.rate === undefined ? "" : wrkDelay(o.connections / o.rate))),
  };
}

/**
 * autocannon through its API (the CLI takes one path): every connection sends `requests` in order, round and
 * round. Prints the result object the CLI's -j prints.
 */
const AUTOCANNON_MIX = `
const [origin, key, connections, seconds, paths, acceptEncoding, rate] = process.argv.slice(2);
require(${JSON.stringify(join(import.meta.dir, "..", "node_modules", "autocannon"))})(
  { url: origin, connections: Number(connections), duration: Number(seconds), ...(rate ? { overallRate: Number(rate) } : {}),
    headers: { authorization: "Bearer " + key, ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}) },
    requests: JSON.parse(paths).map((path) => ({ method: "GET", path })) },
  (error, result) => { if (error) { console.error(error); process.exit(1); } process.stdout.write(JSON.stringify(result)); },
);
`;

async function runAutocannon(cmd: string[], o: LoadOptions): Promise<LoadResult> {
  const stdoutPath = join(o.dir, `autocannon-${o.label}.json`);
  const stderrPath = join(o.dir, `autocannon-${o.label}.stderr.log`);
  const measured = await runMeasured(cmd, { cwd: o.dir, timeoutS: o.seconds + 60, stdoutPath, stderrPath });
  if (measured.exit_code !== 0) throw new Error(`autocannon exit ${measured.exit_code ?? measured.signal}: ${tail(stderrPath, 5)}`);
  const r = JSON.parse(readFileSync(stdoutPath, "utf8"));
  return {
    req_per_s: Math.round(r.requests.total / r.duration),
    requests: r.requests.total,
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

function autocannon(): LoadGenerator {
  return {
    name: "autocannon",
    version: firstLine(["node", AUTOCANNON_CLI, "--version"])?.split(/\s+/)[1] ?? null,
    run: (url, o) =>
      runAutocannon(
        [
          "node",
          AUTOCANNON_CLI,
          "-c",
          String(o.connections),
          "-d",
          String(o.seconds),
          "-j",
          "-H",
          `authorization=Bearer ${o.key}`,
          ...(o.acceptEncoding === undefined ? [] : ["-H", `accept-encoding=${o.acceptEncoding}`]),
          url,
        ],
        o,
      ),
    runMix(origin, paths, o) {
      const script = join(o.dir, `autocannon-${o.label}.cjs`);
      writeFileSync(script, AUTOCANNON_MIX);
      return runAutocannon(
        [
          "node",
          script,
          origin,
          o.key,
          String(o.connections),
          String(o.seconds),
          JSON.stringify(paths),
          o.acceptEncoding ?? "",
          o.rate === undefined ? "" : String(o.rate),
        ],
        o,
      );
    },
  };
}

/** The generator to use: `preferred` when given, else wrk when on PATH, else autocannon; null when neither exists. */
export function loadGenerator(preferred?: "wrk" | "autocannon"): LoadGenerator | null {
  const hasWrk = Bun.which("wrk") !== null;
  const hasAutocannon = existsSync(AUTOCANNON_CLI);
  if (preferred === "wrk") return hasWrk ? wrk() : null;
  if (preferred === "autocannon") return hasAutocannon ? autocannon() : null;
  if (hasWrk) return wrk();
  return hasAutocannon ? autocannon() : null;
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeAfterRun } from "../helpers/after-run.ts";
import { cleanEnv, MAIN, runCli } from "../helpers/cli.ts";
import { faketimeMissing, SteppedClock } from "../helpers/faketime.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";

/**
 * Real wall-clock steps under a real `linkpatrol serve` (libfaketime, wall clock only, as an NTP step does):
 * stepped back 10 minutes, then 5 hours, then forward again, an existing key, the sign-in page and /healthz
 * are answered as before, never 429 (the buckets once used the wall clock: a step back of 10 min answered
 * everyone 429 with Retry-After 540). A step forward does not refill a drained bucket either. What else a
 * client sees across a step back: a crawl's progress keeps being written, a kept API answer that depends on
 * the clock (a domain's next_run_at) is computed again, and `check` reports no negative duration.
 */

const missing = faketimeMissing();
if (missing !== null) console.warn(`clock-step tests skipped: ${missing}`);

const KEY = `lp_${"C".repeat(40)}`;
/** Five requests a minute per bucket: the steps below use exactly that many, then one more is refused. */
const LIMIT = 5;

describe.skipIf(missing !== null)("wall-clock steps", () => {
  let dir: string;
  let clock: SteppedClock;
  let serve: ServeProcess;
  let origin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "linkpatrol-clock-"));
    clock = new SteppedClock(dir);
    serve = startServeProcess(writeServeConfig(dir, KEY), [], { ...clock.env(), LINKPATROL_AUTH_RATE_LIMIT: String(LIMIT) });
    origin = (await serve.ready).replace(/\/v1$/, "");
  }, 30_000);

  afterAll(async () => {
    serve?.proc.kill("SIGTERM");
    await Promise.race([serve?.proc.exited, Bun.sleep(10_000)]);
    removeAfterRun(dir);
  });

  test("libfaketime steps Bun's wall clock and leaves its monotonic clock alone", () => {
    // Done by a child of its own, which steps its clock itself and reads both clocks either side of the step.
    const script = `
      const { writeFileSync } = require("node:fs");
      const wall0 = Date.now(), mono0 = performance.now();
      writeFileSync(${JSON.stringify(clock.file)}, "-18000\\n");
      const wall1 = Date.now(), mono1 = performance.now();
      writeFileSync(${JSON.stringify(clock.file)}, "+0\\n");
      console.log(JSON.stringify({ wallStep: wall1 - wall0, monoStep: mono1 - mono0 }));`;
    const child = Bun.spawnSync({ cmd: [process.execPath, "-e", script], env: { ...process.env, ...clock.env() }, stdout: "pipe", stderr: "pipe" });
    expect(child.exitCode).toBe(0);
    const { wallStep, monoStep } = JSON.parse(child.stdout.toString());
    expect(wallStep).toBeLessThan(-17_990_000);
    expect(wallStep).toBeGreaterThan(-18_010_000);
    expect(monoStep).toBeGreaterThanOrEqual(0);
    expect(monoStep).toBeLessThan(5_000);
  });

  /** The three callers of the report: an existing key, the sign-in page, /healthz. */
  async function callers(): Promise<{ key: Response; signIn: Response; health: Response }> {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
    return {
      key: await get("/v1/domains", { authorization: `Bearer ${KEY}` }),
      signIn: await get("/ui/sign-in"),
      health: await get("/healthz"),
    };
  }

  /** The server's wall clock when it logged its latest request line. */
  function serverClock(): number {
    const lines = serve.stderr.text.split("\n").filter((line) => line.includes('"msg":"request"'));
    return Date.parse(JSON.parse(lines.at(-1)!).time);
  }

  test("back 10 minutes, back 5 hours, forward again: no caller gets 429", async () => {
    const steps = [0, -600, -600 - 5 * 3600, 0, 5 * 3600];
    for (const [index, offset] of steps.entries()) {
      clock.set(offset);
      const answers = await callers();
      for (const [who, res] of Object.entries(answers)) {
        expect(`${who} after step ${index} (${offset} s): ${res.status} retry-after ${res.headers.get("retry-after")}`).toBe(
          `${who} after step ${index} (${offset} s): 200 retry-after null`,
        );
        // One token each step (one more may have come back meanwhile, at one per 12 s): none given by a step.
        expect(Number(res.headers.get("ratelimit-remaining"))).toBeLessThanOrEqual(LIMIT - index);
        await res.arrayBuffer();
      }
      // The step is real: the server's own clock moved with the file (its log line may take a moment to arrive).
      const off = () => Math.abs(serverClock() - (Date.now() + offset * 1000));
      for (let i = 0; i < 100 && off() >= 5_000; i++) await Bun.sleep(20);
      expect(off()).toBeLessThan(5_000);
    }
  }, 30_000);

  test("a step forward does not refill a drained bucket", async () => {
    const callWithKey = () => fetch(`${origin}/v1/domains`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(10_000) });
    let drained: Response | null = null;
    for (let i = 0; i <= LIMIT && drained === null; i++) {
      const res = await callWithKey();
      await res.arrayBuffer();
      if (res.status === 429) drained = res;
    }
    expect(drained?.status).toBe(429);
    clock.step(86_400);
    const later = await callWithKey();
    expect(later.status).toBe(429);
    expect(Number(later.headers.get("retry-after"))).toBeLessThanOrEqual(60 / LIMIT);
  }, 30_000);
});

/** A site whose pages each take a while, so a crawl of it runs for a few seconds. */
async function slowSite(pages: number, delayMs: number): Promise<LoopbackSite> {
  const links = Array.from({ length: pages }, (_, i) => `<a href="/p${i}">${i}</a>`).join(" ");
  return startLoopbackSite(
    { "/": { body: `<!doctype html><title>slow</title>${links}` } },
    {
      fallback: async () => {
        await Bun.sleep(delayMs);
        return new Response("<!doctype html><title>page</title><p>page</p>", { headers: { "content-type": "text/html" } });
      },
    },
  );
}

describe.skipIf(missing !== null)("what clients see across a step back", () => {
  const key = `lp_${"D".repeat(40)}`;
  const api = apiClient(key);
  let dir: string;
  let clock: SteppedClock;
  let serve: ServeProcess;
  let base: string;
  let site: LoopbackSite;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "linkpatrol-clock-seen-"));
    clock = new SteppedClock(dir);
    site = await slowSite(60, 300);
    serve = startServeProcess(writeServeConfig(dir, key), [], clock.env());
    base = await serve.ready;
  }, 30_000);

  afterAll(async () => {
    serve?.proc.kill("SIGTERM");
    await Promise.race([serve?.proc.exited, Bun.sleep(10_000)]);
    await site?.stop();
    removeAfterRun(dir);
  });

  async function domainId(): Promise<string> {
    const listed = (await api(base, "GET", "/domains")).data as { id: string; name: string }[];
    const known = listed.find((domain) => domain.name === site.host);
    if (known !== undefined) return known.id;
    const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", join(dir, "linkpatrol.yaml")]);
    if (added.exitCode !== 0) throw new Error(`domains add: ${added.stderr}`);
    return JSON.parse(added.stdout).id;
  }

  test("a running crawl's progress keeps moving after the clock is set back 5 hours", async () => {
    clock.set(0);
    const crawl = (await api(base, "POST", "/crawls", { domain_id: await domainId() })).data;
    const read = async () => (await api(base, "GET", `/crawls/${crawl.id}`)).data as { status: string; pages_crawled: number };
    let now = await read();
    for (let i = 0; i < 100 && !(now.status === "running" && now.pages_crawled > 0); i++) now = (await Bun.sleep(50), await read());
    expect(now.status).toBe("running");
    clock.set(-5 * 3600);
    const atStep = now.pages_crawled;
    const seenWhileRunning = new Set<number>();
    for (let i = 0; i < 300 && now.status === "running"; i++) {
      await Bun.sleep(50);
      now = await read();
      if (now.status === "running") seenWhileRunning.add(now.pages_crawled);
    }
    expect(now.status).toBe("completed");
    expect(now.pages_crawled).toBe(61);
    // Written while it ran (every 250 ms, on the monotonic clock), not only once the queue ran dry: that
    // happens past page 44 (16 checks in flight), and the wall clock once stopped the timed writes before it.
    expect([...seenWhileRunning].some((pages) => pages > atStep && pages < 40)).toBe(true);
  }, 60_000);

  test("a domain's next_run_at follows the clock once the kept answer is a second old", async () => {
    clock.set(0);
    const id = await domainId();
    await api(base, "PATCH", `/domains/${id}`, { schedule: "0 * * * *", schedule_timezone: "UTC" });
    const nextRun = async () => (await api(base, "GET", `/domains/${id}`)).data.next_run_at as string;
    const before = await nextRun();
    clock.set(-5 * 3600);
    const expected = new Date(Math.ceil((clock.now() + 1) / 3_600_000) * 3_600_000).toISOString();
    let after = await nextRun();
    for (let i = 0; i < 60 && after === before; i++) after = (await Bun.sleep(100), await nextRun());
    expect(after).toBe(expected);
    await api(base, "PATCH", `/domains/${id}`, { schedule: null });
  }, 30_000);

  test("check reports no negative duration when the clock is set back during its run", async () => {
    clock.set(0);
    const proc = Bun.spawn({
      cmd: [process.execPath, MAIN, "check", site.url("/"), "--allow-private", "--format", "json"],
      env: { ...cleanEnv(), ...clock.env() },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    await Bun.sleep(1_500);
    clock.set(-600);
    const [stdout, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(exitCode).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.summary.pages_crawled).toBe(61);
    expect(report.summary.duration_ms).toBeGreaterThanOrEqual(0);
  }, 60_000);
});

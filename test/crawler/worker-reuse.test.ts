import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HAS_THREAD_STATS, threadNices } from "../helpers/threads.ts";

/**
 * The pool keeps its worker threads between crawls (Bun keeps part of a terminated worker's memory, so a worker
 * per crawl grew the service with every crawl): consecutive crawls run on the same thread, stopping the pool
 * ends it, and an idle one keeps no process alive. The worker thread is told apart by its nice value
 * (crawler.nice), which only it and the threads its VM starts carry.
 */

const NICE = 11;
let site: LoopbackSite;
let svc: TestService;

/** Holds /held until released; `arrived` resolves when the crawl has asked for it. */
interface Gate {
  arrived: Promise<void>;
  release(): void;
}
let gate: { arrive(): void; held: Promise<void>; release(): void } | null = null;

/** Opens a gate for the next request of /held. */
function nextGate(): Gate {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  gate = { arrive, held, release };
  return { arrived, release };
}

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: "<a href='/held'>held</a>" },
    // Answers once the test releases it, so the crawl (and its worker) is busy until then.
    "/held": async () => {
      const current = gate;
      current?.arrive();
      await current?.held;
      return new Response("<p>done</p>", { headers: { "content-type": "text/html" } });
    },
  });
  svc = await startTestService({ crawler: { workers: 1, nice: NICE, header_timeout: "30s" } });
});
afterAll(async () => {
  gate?.release();
  await svc?.stop();
  await site?.stop();
});

/** Threads at crawler.nice that `before` did not have: the pool's worker and its VM's helpers. */
function workerThreads(before: Map<string, number>): number[] {
  return [...threadNices()]
    .filter(([tid, nice]) => nice === NICE && !before.has(tid))
    .map(([tid]) => Number(tid))
    .sort((a, b) => a - b);
}

/** Starts a crawl, waits (bounded) until it asks for /held, and returns the crawl's id and the worker's threads. */
async function crawlHeld(domainId: string, before: Map<string, number>): Promise<{ id: string; threads: number[]; release(): void }> {
  const held = nextGate();
  const id = await startCrawl(svc, domainId);
  await Promise.race([held.arrived, Bun.sleep(10_000)]);
  return { id, threads: workerThreads(before), release: held.release };
}

test.skipIf(!HAS_THREAD_STATS)("consecutive crawls run on one worker thread, which the pool ends when it stops", async () => {
  const before = threadNices();
  const domainId = await verifiedDomain(svc, site.url("/"));

  const first = await crawlHeld(domainId, before);
  expect(first.threads.length).toBeGreaterThanOrEqual(1);
  first.release();
  expect((await waitForCrawl(svc, first.id)).status).toBe("completed");
  // Idle, the worker is still there.
  expect(workerThreads(before)).toContain(first.threads[0]!);

  const second = await crawlHeld(domainId, before);
  // The worker's own thread is the first of its threads; the second crawl runs on it again.
  expect(second.threads[0]).toBe(first.threads[0]!);
  second.release();
  expect((await waitForCrawl(svc, second.id)).status).toBe("completed");

  await svc.runtime.crawlPool.stop();
  let left = workerThreads(before);
  for (let i = 0; i < 200 && left.includes(first.threads[0]!); i++) {
    await Bun.sleep(25);
    left = workerThreads(before);
  }
  expect(left).not.toContain(first.threads[0]!);
});

test("an idle worker keeps no process alive: a script whose crawl has ended exits without stopping the pool", async () => {
  const script = `
    import { configSchema } from "${new URL("../../src/config/schema.ts", import.meta.url).pathname}";
    import { openRuntime } from "${new URL("../../src/runtime.ts", import.meta.url).pathname}";
    const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<a href='/'>home</a>", { headers: { "content-type": "text/html" } }) });
    const dir = (await import("node:fs")).mkdtempSync("/tmp/linkpatrol-idle-worker-");
    const runtime = await openRuntime(configSchema.parse({ storage: { path: dir + "/store.db" }, crawler: { workers: 1, allow_private_networks: true }, logging: { level: "warn" } }), { createStore: true });
    const domain = await runtime.domains.add({ name: "127.0.0.1:" + site.port, root_url: "http://127.0.0.1:" + site.port + "/" }, true);
    const crawl = (await runtime.crawls.start(domain.id, { scan_images: false, scan_scripts: false, scan_stylesheets: false, follow_external: false }));
    runtime.crawlPool.start();
    let status = "pending";
    for (let i = 0; i < 400 && (status === "pending" || status === "running" || runtime.crawlPool.active.length > 0); i++) {
      await Bun.sleep(25);
      status = (await runtime.crawls.get(crawl.id)).status;
    }
    site.stop(true);
    await runtime.close();
    (await import("node:fs")).rmSync(dir, { recursive: true, force: true });
    console.log(status);
  `;
  const child = Bun.spawn({ cmd: [process.execPath, "-e", script], stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const exitCode = await child.exited;
  clearTimeout(killer);
  expect({ exitCode, stdout: (await new Response(child.stdout).text()).trim(), stderr: await new Response(child.stderr).text() }).toEqual({
    exitCode: 0,
    stdout: "completed",
    stderr: "",
  });
});

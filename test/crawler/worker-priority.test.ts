import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HAS_THREAD_STATS, threadNices } from "../helpers/threads.ts";

/**
 * crawler.nice: a crawl's worker thread runs at that nice value, the rest of the service at its own, so the API
 * takes the CPU first while crawls run. Read from /proc, where Linux keeps the nice value per thread.
 */

const NICE = 7;
let releaseHang!: () => void;
const hang = new Promise<void>((resolve) => (releaseHang = resolve));
let site: LoopbackSite;
let svc: TestService;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: "<a href='/slow'>slow</a>" },
    "/slow": async () => {
      await hang;
      return new Response("<p>late</p>", { headers: { "content-type": "text/html" } });
    },
  });
  svc = await startTestService({ crawler: { nice: NICE, header_timeout: "30s" } });
}, 30_000); // starts a service: past the 5 s default on a loaded machine
afterAll(async () => {
  releaseHang();
  await svc?.stop();
  await site?.stop();
});

test.skipIf(!HAS_THREAD_STATS)(
  "a crawl's worker thread runs at crawler.nice, the service's own threads at theirs",
  async () => {
    // Threads of services stopped by earlier test files in this process may still be ending, some at a raised nice
    // value (worker-reuse's run): every thread alive now is set aside by its id, and only threads born after it
    // are judged.
    const before = threadNices();
    const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
    // Bounded: the crawl is stuck on /slow until released, so its worker lives; 200 polls of 25 ms.
    let lowered: string[] = [];
    for (let i = 0; i < 200 && lowered.length === 0; i++) {
      await Bun.sleep(25);
      lowered = [...threadNices()].filter(([tid, nice]) => nice === NICE && !before.has(tid)).map(([tid]) => tid);
    }
    // The worker thread, and threads its JavaScript VM starts after it (its garbage collector)...
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    // ...and none of the service's own threads: each thread that was there before keeps its nice value.
    const now = threadNices();
    const changed = [...before].filter(([tid, nice]) => now.has(tid) && now.get(tid) !== nice).map(([tid, nice]) => `${tid}: ${nice} → ${now.get(tid)}`);
    expect(changed).toEqual([]);
    expect(now.get(String(process.pid))).toBe(before.get(String(process.pid))!);
    releaseHang();
    expect((await waitForCrawl(svc, id)).status).toBe("completed");
  },
  30_000,
);

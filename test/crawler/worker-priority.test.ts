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
    // Threads of services stopped by earlier test files in this process end asynchronously (worker-reuse's run at
    // a higher nice value): bounded, 200 polls of 25 ms.
    for (let i = 0; i < 200 && [...threadNices().values()].some((nice) => nice >= NICE); i++) await Bun.sleep(25);
    const before = threadNices();
    expect([...before.values()].every((nice) => nice < NICE)).toBe(true);
    const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
    // Bounded: the crawl is stuck on /slow until released, so its worker lives; 200 polls of 25 ms.
    let lowered: string[] = [];
    for (let i = 0; i < 200 && lowered.length === 0; i++) {
      await Bun.sleep(25);
      lowered = [...threadNices()].filter(([, nice]) => nice === NICE).map(([tid]) => tid);
    }
    // The worker thread, and threads its JavaScript VM starts after it (its garbage collector): none of the
    // service's own threads.
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    expect(lowered.filter((tid) => before.has(tid))).toEqual([]);
    expect(threadNices().get(String(process.pid))).toBe(before.get(String(process.pid))!);
    releaseHang();
    expect((await waitForCrawl(svc, id)).status).toBe("completed");
  },
  30_000,
);

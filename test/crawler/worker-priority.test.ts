import { afterAll, beforeAll, expect, test } from "bun:test";
import { parserThreadsUsed } from "../../src/crawler/page-parser.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HAS_THREAD_STATS, isWorkerThread, threadNices } from "../helpers/threads.ts";

/**
 * crawler.nice: a crawl's worker thread and its page parser thread run at that nice value, the rest of the
 * service at its own, so the API takes the CPU first while crawls run. Read from /proc, where Linux keeps the nice value per thread.
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
});
afterAll(async () => {
  releaseHang();
  await svc?.stop();
  await site?.stop();
});

/** The Worker threads among `tids`. */
function workerThreads(tids: string[]): string[] {
  return tids.filter(isWorkerThread);
}

test.skipIf(!HAS_THREAD_STATS)("a crawl's worker thread and its page parser run at crawler.nice, the service's own threads at theirs", async () => {
  // Threads of services stopped by earlier test files end asynchronously: bounded, 200 polls of 25 ms.
  for (let i = 0; i < 200 && [...threadNices().values()].some((nice) => nice >= NICE); i++) await Bun.sleep(25);
  const before = threadNices();
  expect([...before.values()].every((nice) => nice < NICE)).toBe(true);
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  // The crawl worker, and on a machine with two cores its page parser thread (page-parser.ts).
  const workers = parserThreadsUsed() ? 2 : 1;
  // Bounded: the crawl is stuck on /slow until released, so its worker lives; 200 polls of 25 ms.
  let lowered: string[] = [];
  for (let i = 0; i < 200 && workerThreads(lowered).length < workers; i++) {
    await Bun.sleep(25);
    lowered = [...threadNices()].filter(([, nice]) => nice === NICE).map(([tid]) => tid);
  }
  // The worker threads, and threads their JavaScript VMs start after them (garbage collectors): none of the
  // service's own threads.
  expect(workerThreads(lowered).length).toBe(workers);
  expect(lowered.filter((tid) => before.has(tid))).toEqual([]);
  expect(threadNices().get(String(process.pid))).toBe(before.get(String(process.pid))!);
  releaseHang();
  expect((await waitForCrawl(svc, id)).status).toBe("completed");
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HAS_THREAD_STATS, threadNices } from "../helpers/threads.ts";

/**
 * The pool keeps its worker threads between crawls (Bun keeps part of a terminated worker's memory, so a worker
 * per crawl grew the service with every crawl): consecutive crawls run on the same thread, and stopping the
 * pool ends it. The worker thread is told apart by its nice value (crawler.nice), which only it and the threads
 * its VM starts carry.
 */

const NICE = 11;
let site: LoopbackSite;
let svc: TestService;
let release: () => void = () => {};

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: "<a href='/held'>held</a>" },
    // Answers once the test releases it, so the crawl (and its worker) is busy until then.
    "/held": async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return new Response("<p>done</p>", { headers: { "content-type": "text/html" } });
    },
  });
  svc = await startTestService({ crawler: { workers: 1, nice: NICE, header_timeout: "30s" } });
});
afterAll(async () => {
  release();
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

/** Waits (bounded: 200 polls of 25 ms) until a worker thread shows, and returns them. */
async function whileHeld(before: Map<string, number>): Promise<number[]> {
  let threads: number[] = [];
  for (let i = 0; i < 200 && threads.length === 0; i++) {
    await Bun.sleep(25);
    threads = workerThreads(before);
  }
  return threads;
}

test.skipIf(!HAS_THREAD_STATS)("consecutive crawls run on one worker thread, which the pool ends when it stops", async () => {
  const before = threadNices();
  const domainId = await verifiedDomain(svc, site.url("/"));

  const first = await startCrawl(svc, domainId);
  const firstThreads = await whileHeld(before);
  expect(firstThreads.length).toBeGreaterThanOrEqual(1);
  release();
  expect((await waitForCrawl(svc, first)).status).toBe("completed");
  // Idle, the worker is still there.
  expect(workerThreads(before)).toContain(firstThreads[0]!);

  const second = await startCrawl(svc, domainId);
  const secondThreads = await whileHeld(before);
  // The worker's own thread is the first of its threads; the second crawl runs on it again.
  expect(secondThreads[0]).toBe(firstThreads[0]!);
  release();
  expect((await waitForCrawl(svc, second)).status).toBe("completed");

  await svc.runtime.crawlPool.stop();
  let left = workerThreads(before);
  for (let i = 0; i < 200 && left.includes(firstThreads[0]!); i++) {
    await Bun.sleep(25);
    left = workerThreads(before);
  }
  expect(left).not.toContain(firstThreads[0]!);
}, 30_000);

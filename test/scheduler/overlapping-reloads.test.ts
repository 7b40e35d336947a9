import { expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { CrawlScheduler, type ScheduledDomain } from "../../src/scheduler/scheduler.ts";

/**
 * The scheduler reads its domains from the store asynchronously (issue 43): two reloads asked at once (two
 * schedule changes in quick succession) may overlap, and only the newest read builds the jobs, so no domain gets
 * two jobs; a reload still reading when the scheduler stops builds none.
 */

const domain = (id: string): ScheduledDomain => ({
  id,
  name: `${id}.example`,
  schedule: "0 3 * * *",
  timezone: null,
  options: null,
  scheduleSetAt: "2026-11-28T00:00:00.000Z",
});

function scheduler(answers: Array<() => Promise<ScheduledDomain[]>>) {
  const loaded: unknown[] = [];
  const logger = createLogger("debug", (line) => {
    const entry = JSON.parse(line) as { msg: string; jobs?: number };
    if (entry.msg === "schedules loaded") loaded.push(entry.jobs);
  });
  let reads = 0;
  const instance = new CrawlScheduler({
    domains: () => answers[Math.min(reads++, answers.length - 1)]!(),
    startCrawl: async () => ({ id: "never" }),
    lastScheduledAt: async () => undefined,
    catchUp: false,
    logger,
  });
  return { instance, loaded };
}

test("of two overlapping reloads only the newer one builds the jobs, whichever read ends first", async () => {
  let releaseOld!: () => void;
  const oldRead = new Promise<void>((resolve) => {
    releaseOld = resolve;
  });
  const { instance, loaded } = scheduler([
    async () => [domain("a")],
    async () => {
      await oldRead;
      return [domain("a")];
    },
    async () => [domain("a"), domain("b")],
  ]);
  await instance.start();
  expect(loaded).toEqual([1]);
  const older = instance.reload();
  const newer = instance.reload();
  await newer;
  releaseOld();
  await older;
  expect(loaded).toEqual([1, 2]);
  instance.stop();
});

test("a reload still reading when the scheduler stops builds nothing", async () => {
  let release!: () => void;
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { instance, loaded } = scheduler([
    async () => [],
    async () => {
      await slow;
      return [domain("a")];
    },
  ]);
  await instance.start();
  const reading = instance.reload();
  instance.stop();
  release();
  await reading;
  expect(loaded).toEqual([0]);
});

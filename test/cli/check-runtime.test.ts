import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../../src/config/schema.ts";
import { CrawlOptionsSchema } from "../../src/core/crawl-options.ts";
import { openRuntime } from "../../src/runtime.ts";
import { removeAfterRun } from "../helpers/after-run.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * What `linkpatrol check` asks of the runtime: the end of its crawl is signalled (check reports at once instead
 * of polling), and its temporary store is migrated without the service lock, whose file would otherwise appear
 * beside it.
 */

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/a'>A</a>" }, "/a": { body: "<a href='/'>home</a>" } });
});
afterAll(async () => {
  await site?.stop();
});

function temporaryStoreConfig() {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-check-runtime-"));
  removeAfterRun(dir);
  const config = configSchema.parse({
    storage: { path: join(dir, "check.db") },
    crawler: { workers: 1, allow_private_networks: true },
    logging: { level: "error" },
  });
  return { dir, config };
}

test("a crawl's end is signalled once its final state is stored", async () => {
  const { config } = temporaryStoreConfig();
  const statusesAtTransitions: string[] = [];
  let crawlId = "";
  let ended!: () => void;
  const end = new Promise<void>((resolve) => (ended = resolve));
  const runtime = await openRuntime(config, {
    inlineCrawls: true,
    temporaryStore: true,
    onCrawlTransition: () => {
      // The status as stored when the transition is signalled: read at once (a settled promise on SQLite).
      void runtime.crawls.get(crawlId).then(({ status }) => {
        statusesAtTransitions.push(status);
        if (status === "completed" || status === "failed") ended();
      });
    },
  });
  try {
    const domain = await runtime.domains.add({ name: new URL(site.url("/")).host, root_url: site.url("/") }, true);
    crawlId = (await runtime.crawls.start(domain.id, CrawlOptionsSchema.parse({}))).id;
    runtime.crawlPool.start();
    // No polling here: without the signal this waits until the test's timeout and fails.
    await end;
    expect(statusesAtTransitions).toEqual(["running", "completed"]);
    const detail = await runtime.crawls.get(crawlId);
    expect(detail.pages_crawled).toBe(2);
    expect(detail.total_links).toBe(2);
  } finally {
    await runtime.crawlPool.stop();
    await runtime.close();
  }
});

test("a temporary store is migrated in full without taking the service lock", async () => {
  const { dir, config } = temporaryStoreConfig();
  const runtime = await openRuntime(config, { inlineCrawls: true, temporaryStore: true });
  try {
    const applied = runtime.store.sqlite!.query<{ n: number }, []>("SELECT count(*) AS n FROM schema_migrations").get()!.n;
    expect(applied).toBeGreaterThan(0);
    expect(existsSync(`${config.storage.path}.lock`)).toBe(false);
  } finally {
    await runtime.close();
  }
  expect(readdirSync(dir).filter((name) => name.endsWith(".lock"))).toEqual([]);
});

test("a service store still takes the lock while it is migrated", async () => {
  const { config } = temporaryStoreConfig();
  const runtime = await openRuntime(config, { inlineCrawls: true, createStore: true });
  await runtime.close();
  expect(existsSync(`${config.storage.path}.lock`)).toBe(true);
});

test("a temporary store has no WAL, so it is refused to crawls in worker threads, before any file is made", async () => {
  const { dir, config } = temporaryStoreConfig();
  await expect(openRuntime(config, { temporaryStore: true })).rejects.toThrow("a temporary store needs inline crawls");
  expect(readdirSync(dir)).toEqual([]);
});

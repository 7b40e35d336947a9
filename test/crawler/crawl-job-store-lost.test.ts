import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../../src/config/schema.ts";
import { executeCrawlJob, type CrawlJobSettings } from "../../src/crawler/crawl-job.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openStore } from "../../src/store/sqlite.ts";

/**
 * A crawl job opens the store file the service opened, or nothing: when the path no longer names it (deleted,
 * moved, replaced), the job does not make a new empty store there (which failed the crawl with "no such table"
 * and left a file the next start took for the store); it pauses, leaving the crawl running to resume later.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-job-lost-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CRAWL_ID = "01a20460-0000-7000-8000-00000000a001";

/** A store with one running crawl; returns the settings a job of the service gets for it. */
function storeWithRunningCrawl(name: string): CrawlJobSettings {
  const path = join(dir, name);
  const store = openStore(path, { create: true });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  store.sqlite.run(
    "INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01', '2026-01-01')",
    [CRAWL_ID],
  );
  store.close();
  const { dev, ino } = statSync(path, { bigint: true });
  const storeFile = { dev, ino };
  const crawler = configSchema.parse({}).crawler;
  return { dbPath: path, storeFile, busyTimeoutMs: 1_000, crawler, logLevel: "error" };
}

test.each([
  ["deleted", (path: string) => rmSync(path)],
  ["moved", (path: string) => renameSync(path, `${path}.moved`)],
  [
    "replaced",
    (path: string) => {
      rmSync(path);
      writeFileSync(path, "");
    },
  ],
] as const)("a job whose store file was %s pauses, and makes no store at the path", async (how, lose) => {
  const settings = storeWithRunningCrawl(`${how}.db`);
  lose(settings.dbPath);
  const end = await executeCrawlJob(CRAWL_ID, settings, { signal: new AbortController().signal });
  expect(end).toEqual({ kind: "paused", reason: expect.any(String) });
  if (how === "replaced") expect(Bun.file(settings.dbPath).size).toBe(0);
  else expect(existsSync(settings.dbPath)).toBe(false);
});

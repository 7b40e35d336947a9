import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJobDatabase } from "../../src/crawler/crawl-job.ts";
import { openStore } from "../../src/store/sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-db-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a file store runs in WAL mode with FULL sync, foreign keys and the busy timeout on", () => {
  const store = openStore(join(dir, "nested", "lp.db"), { busyTimeoutMs: 1234, create: true });
  const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("foreign_keys")).toBe(1);
  expect(pragma("busy_timeout")).toBe(1234);
  expect(pragma("synchronous")).toBe(2);
  store.close();
});

test("a crawl job's connection: NORMAL sync and no foreign-key lookups", () => {
  const path = join(dir, "jobs.db");
  openStore(path, { create: true }).close();
  const sqlite = openJobDatabase({ dbPath: path, busyTimeoutMs: 100, temporaryStore: false });
  const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect({ journal: pragma("journal_mode"), sync: pragma("synchronous"), fk: pragma("foreign_keys"), checkpoint: pragma("wal_autocheckpoint") }).toEqual({
    journal: "wal",
    sync: 1,
    fk: 0,
    checkpoint: 1000,
  });
  sqlite.close();
});

test("check's temporary store: no WAL (the rollback journal in memory) and no sync, on its own connection and the job's", () => {
  const path = join(dir, "temporary.db");
  const store = openStore(path, { temporary: true, create: true });
  const job = openJobDatabase({ dbPath: path, busyTimeoutMs: 100, temporaryStore: true });
  for (const sqlite of [store.sqlite, job]) {
    const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    expect([pragma("journal_mode"), pragma("synchronous")]).toEqual(["memory", 0]);
  }
  expect(Object.values(store.sqlite.query("PRAGMA foreign_keys").get() as object)[0]).toBe(1);
  expect(Object.values(job.query("PRAGMA foreign_keys").get() as object)[0]).toBe(0);
  // A failed batch still rolls back: the journal is in memory, not gone.
  store.sqlite.exec("CREATE TABLE t (x INTEGER)");
  expect(() =>
    store.sqlite.transaction(() => {
      store.sqlite.exec("INSERT INTO t VALUES (1)");
      throw new Error("batch failed");
    })(),
  ).toThrow("batch failed");
  expect(store.sqlite.query("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 0 });
  job.close();
  store.close();
});

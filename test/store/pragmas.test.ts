import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJobDatabase } from "../../src/crawler/crawl-job.ts";
import { migrate } from "../../src/store/migrate.ts";
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

test("a crawl job's foreign keys are off for its connection alone: the store's, and one opened after, still enforce them", () => {
  const path = join(dir, "keys.db");
  const store = openStore(path, { create: true });
  migrate(store.sqlite);
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'running', '{}', '2026-01-01')");
  const job = openJobDatabase({ dbPath: path, busyTimeoutMs: 100, temporaryStore: false });
  const orphan = (path: string) => `INSERT INTO crawl_targets (crawl_id, url, internal, depth) VALUES ('no-such-crawl', 'http://example.test/${path}', 1, 0)`;
  job.run(orphan("x")); // the job skips the lookup
  job.run("INSERT INTO crawl_targets (crawl_id, url, internal, depth) VALUES ('c1', 'http://example.test/', 1, 0)");
  expect(() => store.sqlite.run(orphan("y"))).toThrow(/FOREIGN KEY/);
  job.close();
  const later = openStore(path);
  expect(() => later.sqlite.run(orphan("z"))).toThrow(/FOREIGN KEY/);
  // A delete on an enforcing connection still cascades into what the job wrote.
  later.sqlite.run("DELETE FROM crawls WHERE id = 'c1'");
  expect(later.sqlite.query("SELECT crawl_id FROM crawl_targets ORDER BY id").all()).toEqual([{ crawl_id: "no-such-crawl" }]);
  later.close();
  store.close();
});

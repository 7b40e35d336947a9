import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJobDatabase } from "../../src/crawler/crawl-job.ts";
import { openStore, TEMPORARY_STORE_CHECKPOINT_PAGES } from "../../src/store/sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-db-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a file store runs in WAL mode with FULL sync, foreign keys and the busy timeout on", () => {
  const store = openStore(join(dir, "nested", "lp.db"), { busyTimeoutMs: 1234 });
  const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("foreign_keys")).toBe(1);
  expect(pragma("busy_timeout")).toBe(1234);
  expect(pragma("synchronous")).toBe(2);
  store.close();
});

test("a crawl job's connection: NORMAL sync and no foreign-key lookups; on check's temporary store no sync and rare checkpoints", () => {
  const path = join(dir, "jobs.db");
  openStore(path).close();
  const read = (temporaryStore: boolean) => {
    const sqlite = openJobDatabase({ dbPath: path, busyTimeoutMs: 100, temporaryStore });
    const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    const values = { journal: pragma("journal_mode"), sync: pragma("synchronous"), fk: pragma("foreign_keys"), checkpoint: pragma("wal_autocheckpoint") };
    sqlite.close();
    return values;
  };
  expect(read(false)).toEqual({ journal: "wal", sync: 1, fk: 0, checkpoint: 1000 });
  expect(read(true)).toEqual({ journal: "wal", sync: 0, fk: 0, checkpoint: TEMPORARY_STORE_CHECKPOINT_PAGES });
});

test("a temporary store's own connection: no sync and rare checkpoints too", () => {
  const store = openStore(join(dir, "temporary.db"), { temporary: true });
  const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect([pragma("journal_mode"), pragma("synchronous"), pragma("foreign_keys"), pragma("wal_autocheckpoint")]).toEqual(["wal", 0, 1, TEMPORARY_STORE_CHECKPOINT_PAGES]);
  store.close();
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupStore } from "../../src/store/backup.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openDatabase } from "../../src/store/sqlite.ts";
import { removeAfterRun } from "../helpers/after-run.ts";
import { verifiedDomain } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A store gives space back after big deletions: a new store is created with auto_vacuum=INCREMENTAL, and deleting
 * a domain whose crawl held tens of MB frees those pages to the file system (incremental vacuum after the
 * deletion, the WAL cut back after its checkpoint), through the API over a real socket. A store made by an
 * earlier release cannot; a backup of it can, so restoring one converts it.
 */

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { startCrawls: false });
});
afterAll(async () => {
  await svc?.stop();
});

const fileSize = () => {
  svc.runtime.store.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync(svc.config.storage.path).size;
};

test("a new store can give pages back", () => {
  expect(svc.runtime.store.sqlite!.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 2 });
});

test("deleting a domain with a big crawl shrinks the store file", async () => {
  const domainId = await verifiedDomain(svc, "http://big.example/");
  const crawlId = "01a20460-0000-7000-8000-0000000000d1";
  const db = svc.runtime.store.sqlite!;
  db.run("INSERT INTO crawls (id, domain_id, status, options, created_at, completed_at) VALUES (?, ?, 'completed', '{}', '2026-01-01', '2026-01-01')", [
    crawlId,
    domainId,
  ]);
  const target = db
    .query<{ id: number }, [string]>(
      "INSERT INTO crawl_targets (crawl_id, url, state, internal, depth, status_code, is_broken) VALUES (?, 'http://big.example/t', 'done', 1, 1, 200, 0) RETURNING id",
    )
    .get(crawlId)!.id;
  const insert = db.prepare("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES (?, ?, ?, ?, 'anchor')");
  db.transaction(() => {
    for (let i = 0; i < 60_000; i++) insert.run(crawlId, `http://big.example/page/${i}`, target, `link text ${i} ${"x".repeat(400)}`);
  })();
  const full = fileSize();
  expect(full).toBeGreaterThan(20 * 1024 * 1024);

  expect((await svc.call("DELETE", `/domains/${domainId}`)).status).toBe(204);
  const after = fileSize();
  expect(after).toBeLessThan(full / 4);
}, 30_000); // writes and deletes ~30 MB

test("a store made before the mode keeps it; its backup gives space back", async () => {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-old-store-"));
  removeAfterRun(dir);
  const path = join(dir, "old.db");
  // As the previous release made stores: WAL first, so the file can no longer take the mode.
  const old = new Database(path, { create: true });
  old.exec("PRAGMA journal_mode = WAL");
  migrate(old);
  old.close();
  const reopened = openDatabase(path);
  expect(reopened.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 0 });
  // Taken while the store is open elsewhere, as `linkpatrol backup` is beside a running service.
  await backupStore(path, join(dir, "copy.db"), { busyTimeoutMs: 5_000 });
  reopened.close();
  const copy = new Database(join(dir, "copy.db"), { readonly: true });
  expect(copy.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 2 });
  copy.close();
  // A backup of a new store (which has the mode) works too, and keeps it.
  const fresh = openDatabase(join(dir, "new.db"), { create: true });
  migrate(fresh);
  await backupStore(join(dir, "new.db"), join(dir, "copy2.db"), { busyTimeoutMs: 5_000 });
  fresh.close();
  const second = new Database(join(dir, "copy2.db"), { readonly: true });
  expect(second.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 2 });
  second.close();
}, 30_000);

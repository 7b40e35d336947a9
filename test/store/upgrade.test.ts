import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { snapshotStore } from "../fixtures/upgrade/snapshot.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Upgrades: every store committed under test/fixtures/upgrade/<schema version>/ was made by the release of that
 * schema (generate.ts). Opened with today's code it is migrated to the newest schema, and every record reads back
 * through the API as that release showed it (today's code may add fields, never drop or change one).
 */

const FIXTURES = join(import.meta.dir, "..", "fixtures", "upgrade");
const versions = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, "store.db")));

let svc: TestService | undefined;
let dir: string | undefined;
afterEach(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  svc = dir = undefined;
});

test("there is a fixture store for the current schema", () => {
  expect(versions).toContain(MIGRATIONS.at(-1)!.tag);
});

test.each(versions)("a store of schema %s migrates and reads back every record", async (version) => {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-upgrade-"));
  const path = join(dir, "store.db");
  copyFileSync(join(FIXTURES, version, "store.db"), path);
  const expected = JSON.parse(readFileSync(join(FIXTURES, version, "snapshot.json"), "utf8"));

  svc = await startTestService({ storage: { path, retention: { max_age: null, keep_last: null } } }, { startCrawls: false });
  const applied = (svc.runtime.store.sqlite!.query("SELECT tag FROM schema_migrations ORDER BY tag").all() as { tag: string }[]).map((r) => r.tag);
  expect(applied).toEqual(MIGRATIONS.map((m) => m.tag));

  const keyNames = (expected.keys as { name: string }[]).map((key) => key.name);
  const actual = await snapshotStore(svc, keyNames);
  expect(actual.keys).toHaveLength(keyNames.length);
  expect(actual.crawls.length).toBeGreaterThanOrEqual(2);
  expect(Object.values(actual.crawlDetails).every((d) => d.links.length > 0)).toBe(true);
  expect(Object.values(actual.deliveries).flat().length).toBeGreaterThan(0);
  expect(actual).toMatchObject(expected);

  // Keys made by that release still sign in (a revoked one does not), with the scopes they had.
  const secretsFile = join(FIXTURES, version, "secrets.json");
  if (existsSync(secretsFile)) {
    const secrets: Record<string, string> = JSON.parse(readFileSync(secretsFile, "utf8"));
    expect((await svc.call("GET", "/webhooks", { key: secrets["fixture-admin"] })).status).toBe(200);
    expect((await svc.call("GET", "/crawls", { key: secrets["fixture-reader"] })).status).toBe(200);
    expect((await svc.call("GET", "/webhooks", { key: secrets["fixture-reader"] })).status).toBe(403);
    expect((await svc.call("GET", "/crawls", { key: secrets["fixture-revoked"] })).status).toBe(401);
  }

  // The migrated file is sound.
  svc.runtime.store.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const check = new Database(path, { readonly: true });
  try {
    expect(check.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(check.query("PRAGMA foreign_key_check").all()).toEqual([]);
  } finally {
    check.close();
  }
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretsRepo } from "../../src/store/secrets.repo.ts";
import { loadSessionSecret, loadSharedSessionSecret, SESSION_SECRET_NAME } from "../../src/ui/session-secret.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { postgresNodes } from "../helpers/postgres-nodes.ts";

/**
 * The session key: beside a SQLite store in a 0600 file, not in the store (a copied database cannot forge
 * sessions); in a PostgreSQL store's shared secrets, one key for every node (a sign-in holds across nodes).
 */

describe("beside a SQLite store", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lp-session-key-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("made once in a 0600 file beside the store, read back after a restart, never written into the store", () => {
    const store = join(dir, "linkpatrol.db");
    const first = loadSessionSecret(store);
    expect(first.length).toBe(32);
    expect(statSync(`${store}.session-key`).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadSessionSecret(store)).equals(Buffer.from(first))).toBe(true);
    expect(readFileSync(`${store}.session-key`, "utf8").trim()).toBe(Buffer.from(first).toString("base64url"));
    expect(existsSync(store)).toBe(false);
  });
});

describe.skipIf(!HAS_POSTGRES)("in a PostgreSQL store shared by nodes", () => {
  test("three nodes starting at once sign with one key, stored in the database; later starts read the same", async () => {
    const nodes = await postgresNodes(3);
    try {
      const keys = await Promise.all(nodes.dbs.map((db) => loadSharedSessionSecret(new SecretsRepo(db))));
      const texts = keys.map((key) => Buffer.from(key).toString("base64url"));
      expect(new Set(texts).size).toBe(1);
      expect(keys[0]!.length).toBe(32);
      expect(await new SecretsRepo(nodes.dbs[1]!).get(SESSION_SECRET_NAME)).toBe(texts[0]);
      expect(Buffer.from(await loadSharedSessionSecret(new SecretsRepo(nodes.dbs[2]!))).toString("base64url")).toBe(texts[0]!);
    } finally {
      await nodes.close();
    }
  }, 20_000);
});

test("a stored key too short to sign with is refused, naming the row to delete", async () => {
  const short = { getOrCreate: async () => "c2hvcnQ" };
  await expect(loadSharedSessionSecret(short)).rejects.toThrow(/store_secrets 'session_key'.*delete that row/);
});

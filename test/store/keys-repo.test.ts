import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { KeysRepo } from "../../src/store/keys.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** The keys repo answers alike on SQLite and PostgreSQL (issue 43: the store's tests run on both dialects). */

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`keys repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: KeysRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new KeysRepo(store.db);
    });
    afterEach(() => store.close());

    const key = (id: string, created_at: string) => ({
      id,
      name: `key ${id}`,
      prefix: id.slice(0, 8),
      hash: `hash-${id}`,
      scopes: ["crawls:read", "domains:read"],
      created_at,
    });

    test("inserted keys are found by hash and id, listed newest first, counted, revoked and touched", async () => {
      expect(await repo.count()).toBe(0);
      const first = await repo.insert(key("01900000-0000-7000-8000-000000000001", "2026-11-28T09:00:00.000Z"));
      expect(first).toEqual({ ...key("01900000-0000-7000-8000-000000000001", "2026-11-28T09:00:00.000Z"), last_used_at: null, revoked_at: null });
      await repo.insert(key("01900000-0000-7000-8000-000000000002", "2026-11-28T10:00:00.000Z"));
      expect(await repo.count()).toBe(2);
      expect((await repo.findByHash("hash-01900000-0000-7000-8000-000000000002"))?.name).toBe("key 01900000-0000-7000-8000-000000000002");
      expect(await repo.findByHash("no such hash")).toBeUndefined();
      expect((await repo.list()).map((row) => row.id)).toEqual(["01900000-0000-7000-8000-000000000002", "01900000-0000-7000-8000-000000000001"]);
      await repo.markRevoked(first.id, "2026-11-28T11:00:00.000Z");
      await repo.touchLastUsed(first.id, "2026-11-28T11:30:00.000Z");
      const found = await repo.findById(first.id);
      expect(found?.revoked_at).toBe("2026-11-28T11:00:00.000Z");
      expect(found?.last_used_at).toBe("2026-11-28T11:30:00.000Z");
      expect(found?.scopes).toEqual(["crawls:read", "domains:read"]);
    });
  });
}

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { WebhooksRepo } from "../../src/store/webhooks.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** The webhooks repo answers alike on SQLite and PostgreSQL (issue 43: the store's tests run on both dialects). */

const hook = (n: number) => ({
  id: `01900000-0000-7000-8000-00000000000${n}`,
  url: `https://hooks${n}.example/in`,
  name: n === 1 ? null : `hook ${n}`,
  events: ["crawl.completed"],
  secret: `whsec_${n}`,
  createdAt: `2026-11-28T0${n}:00:00.000Z`,
});

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`webhooks repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: WebhooksRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new WebhooksRepo(store.db);
    });
    afterEach(() => store.close());

    test("inserted webhooks are active, paged newest first, counted, renamed, re-subscribed and deleted once", async () => {
      const first = await repo.insert(hook(1));
      expect(first).toEqual({
        id: hook(1).id,
        url: hook(1).url,
        name: null,
        events: ["crawl.completed"],
        secret: "whsec_1",
        active: true,
        disabled_reason: null,
        failing_since: null,
        created_at: hook(1).createdAt,
      });
      await repo.insert(hook(2));
      expect(await repo.count()).toBe(2);
      expect((await repo.page(0, 10)).map((row) => row.id)).toEqual([hook(2).id, hook(1).id]);
      await repo.update(first.id, { name: "renamed", events: ["crawl.failed", "crawl.completed"] });
      expect(await repo.findById(first.id)).toMatchObject({ name: "renamed", events: ["crawl.failed", "crawl.completed"] });
      expect(await repo.delete(first.id)).toBe(true);
      expect(await repo.delete(first.id)).toBe(false);
      expect(await repo.findById(first.id)).toBeUndefined();
    });
  });
}

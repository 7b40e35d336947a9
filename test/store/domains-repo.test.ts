import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { DomainsRepo } from "../../src/store/domains.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** The domains repo answers alike on SQLite and PostgreSQL (issue 43: the store's tests run on both dialects). */

const row = (n: number) => ({
  id: `01900000-0000-7000-8000-00000000000${n}`,
  name: `site${n}.example`,
  root_url: `https://site${n}.example/`,
  verification_token: `token-${n}`,
  verified_at: null,
  verified_by: null,
  created_at: `2026-11-28T0${n}:00:00.000Z`,
});

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`domains repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: DomainsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new DomainsRepo(store.db);
    });
    afterEach(() => store.close());

    test("a name is registered once; pages come newest first; counted; found by id and name", async () => {
      expect((await repo.insertUnlessNameTaken(row(1)))?.name).toBe("site1.example");
      expect(await repo.insertUnlessNameTaken({ ...row(2), name: "site1.example" })).toBeUndefined();
      await repo.insertUnlessNameTaken(row(3));
      expect(await repo.count()).toBe(2);
      expect((await repo.page(0, 10)).map((domain) => domain.name)).toEqual(["site3.example", "site1.example"]);
      expect((await repo.page(1, 10)).map((domain) => domain.name)).toEqual(["site1.example"]);
      expect((await repo.findByName("site3.example"))?.id).toBe(row(3).id);
      expect((await repo.findById(row(1).id))?.ignore_rules).toEqual({ exclude: [], mute: [] });
      expect(await repo.findById("01900000-0000-7000-8000-000000000009")).toBeUndefined();
    });

    test("an update writes only the columns given, JSON ones as JSON; scheduled lists domains with a schedule; delete says whether a row went", async () => {
      await repo.insertUnlessNameTaken(row(1));
      await repo.insertUnlessNameTaken(row(2));
      const updated = await repo.update(row(1).id, {
        schedule: "0 3 * * *",
        schedule_timezone: "Europe/Berlin",
        ignore_rules: { exclude: ["/private/*"], mute: [] },
        updated_at: "2026-11-28T10:00:00.000Z",
      });
      expect(updated).toMatchObject({ schedule: "0 3 * * *", schedule_timezone: "Europe/Berlin", ignore_rules: { exclude: ["/private/*"], mute: [] } });
      expect(updated?.root_url).toBe(row(1).root_url);
      expect((await repo.scheduled()).map((domain) => domain.id)).toEqual([row(1).id]);
      expect(await repo.update("01900000-0000-7000-8000-000000000009", { schedule: null })).toBeUndefined();
      expect(await repo.delete(row(2).id)).toBe(true);
      expect(await repo.delete(row(2).id)).toBe(false);
    });
  });
}

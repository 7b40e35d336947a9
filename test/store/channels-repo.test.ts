import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ChannelsRepo } from "../../src/store/channels.repo.ts";
import { DomainsRepo } from "../../src/store/domains.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The channels repo answers alike on SQLite and PostgreSQL (issue 43): a channel and its domains are written in
 * one transaction, a domain named twice is kept once, and the domains' names are read by a list of ids.
 */

const DOMAIN_A = "01900000-0000-7000-8000-0000000000a1";
const DOMAIN_B = "01900000-0000-7000-8000-0000000000b2";
const CHANNEL = "01900000-0000-7000-8000-0000000000c1";

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`channels repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: ChannelsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new ChannelsRepo(store.db);
      const domains = new DomainsRepo(store.db);
      for (const [id, name] of [
        [DOMAIN_A, "a.example"],
        [DOMAIN_B, "b.example"],
      ] as const) {
        await domains.insertUnlessNameTaken({
          id,
          name,
          root_url: `https://${name}/`,
          verification_token: "t",
          verified_at: null,
          verified_by: null,
          created_at: "2026-11-28T09:00:00.000Z",
        });
      }
    });
    afterEach(() => store.close());

    test("a channel keeps its domains once each; an update replaces them or makes it every domain's; names come by id", async () => {
      const channel = await repo.insert({
        id: CHANNEL,
        name: "team",
        kind: "slack",
        settings: { host: "hooks.slack.com" },
        secrets: { url: "https://hooks.slack.com/services/x" },
        notifyWhen: "changed",
        domainIds: [DOMAIN_B, DOMAIN_A, DOMAIN_B],
        createdAt: "2026-11-28T10:00:00.000Z",
      });
      expect(channel).toMatchObject({
        all_domains: false,
        active: true,
        domain_ids: [DOMAIN_A, DOMAIN_B],
        secrets: { url: "https://hooks.slack.com/services/x" },
      });
      expect(await repo.domainNames([DOMAIN_A, DOMAIN_B, "01900000-0000-7000-8000-0000000000ff"])).toEqual(
        new Map([
          [DOMAIN_A, "a.example"],
          [DOMAIN_B, "b.example"],
        ]),
      );
      await repo.update(CHANNEL, { name: "renamed", domainIds: [DOMAIN_A] });
      expect(await repo.findById(CHANNEL)).toMatchObject({ name: "renamed", domain_ids: [DOMAIN_A] });
      await repo.update(CHANNEL, { domainIds: null });
      expect((await repo.all()).map((row) => [row.name, row.all_domains, row.domain_ids])).toEqual([["renamed", true, []]]);
      expect(await repo.delete(CHANNEL)).toBe(true);
      expect(await repo.delete(CHANNEL)).toBe(false);
    });

    test("a channel whose domain does not exist is not written at all", async () => {
      await expect(
        repo.insert({
          id: CHANNEL,
          name: "team",
          kind: "slack",
          settings: {},
          secrets: {},
          notifyWhen: "changed",
          domainIds: ["01900000-0000-7000-8000-0000000000ff"],
          createdAt: "2026-11-28T10:00:00.000Z",
        }),
      ).rejects.toThrow();
      expect(await repo.all()).toEqual([]);
    });
  });
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "../../src/store/db.ts";
import { LeasesRepo } from "../../src/store/leases.repo.ts";
import { NodesRepo } from "../../src/store/nodes.repo.ts";
import { ScheduleRunsRepo } from "../../src/store/schedule-runs.repo.ts";
import { SecretsRepo } from "../../src/store/secrets.repo.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { postgresNodes } from "../helpers/postgres-nodes.ts";

/**
 * Several nodes racing for the same thing on one PostgreSQL store (issue 43): three separate clients, each its own
 * connections as separate processes would have, ask at the same instant, many times over. Exactly one wins every
 * time: a claim of new or expired work, a scheduled run's firing, a shared secret's value, a node name.
 */

const LEASE = 30_000;
const ROUNDS = 25;
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, seconds));

describe.skipIf(!HAS_POSTGRES)("three nodes on one PostgreSQL store", () => {
  let nodes: { dbs: Db[]; close(): Promise<void> };
  beforeAll(async () => {
    nodes = await postgresNodes(3);
  });
  afterAll(() => nodes?.close());

  const each = <R>(make: (db: Db) => R): R[] => nodes.dbs.map(make);

  test("two and three nodes claiming the same new work at once: exactly one gets it, with fence 1", async () => {
    const leases = each((db) => new LeasesRepo(db));
    for (let round = 0; round < ROUNDS; round++) {
      const racers = round % 2 === 0 ? leases.slice(0, 2) : leases;
      const fences = await Promise.all(racers.map((repo, i) => repo.claim("crawl", `new-${round}`, `node-${i}`, LEASE, at(0))));
      expect(fences.filter((fence) => fence !== null)).toEqual([1]);
      const winner = fences.findIndex((fence) => fence !== null);
      expect(await leases[0]!.find("crawl", `new-${round}`)).toMatchObject({ holder: `node-${winner}`, fence: 1 });
    }
  }, 30_000);

  test("three nodes taking over the same expired lease at once: one takes it with a higher fence, the old holder's check fails", async () => {
    const leases = each((db) => new LeasesRepo(db));
    for (let round = 0; round < ROUNDS; round++) {
      const key = `expired-${round}`;
      expect(await leases[0]!.claim("crawl", key, "node-dead", LEASE, at(0))).toBe(1);
      const fences = await Promise.all(leases.map((repo, i) => repo.claim("crawl", key, `node-${i}`, LEASE, at(31))));
      expect(fences.filter((fence) => fence !== null)).toEqual([2]);
      expect(await leases[1]!.holds("crawl", key, "node-dead", 1)).toBe(false);
      expect(await leases[1]!.holds("crawl", key, `node-${fences.findIndex((fence) => fence !== null)}`, 2)).toBe(true);
    }
  }, 30_000);

  test("a write that checked its lease in its transaction keeps it until the commit: a takeover meanwhile is skipped", async () => {
    const [a, b] = nodes.dbs as [Db, Db];
    await new LeasesRepo(a).claim("crawl", "held-by-write", "node-a", LEASE, at(0));
    const during = await a.transaction(async (tx) => {
      expect(await new LeasesRepo(tx).holds("crawl", "held-by-write", "node-a", 1)).toBe(true);
      // node-a is past its expiry, but its write is under way: node-b's claim passes over the locked row.
      return new LeasesRepo(b).claim("crawl", "held-by-write", "node-b", LEASE, at(31));
    });
    expect(during).toBeNull();
    expect(await new LeasesRepo(b).claim("crawl", "held-by-write", "node-b", LEASE, at(31))).toBe(2);
  }, 10_000);

  test("a scheduled run fired by three nodes at once fires once", async () => {
    const domainId = "01900000-0000-7000-8000-0000000000d1";
    await nodes.dbs[0]!.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ($id, 'race.test', 'https://race.test/', 't')", {
      id: domainId,
    });
    const runs = each((db) => new ScheduleRunsRepo(db));
    for (let round = 0; round < ROUNDS; round++) {
      const fired = await Promise.all(runs.map((repo, i) => repo.fireOnce(domainId, at(round), `node-${i}`)));
      expect(fired.filter(Boolean)).toEqual([true]);
    }
    expect(await runs[0]!.ofDomain(domainId, 100)).toHaveLength(ROUNDS);
  }, 30_000);

  test("a secret made by three nodes at once has one value, the same for all", async () => {
    const secrets = each((db) => new SecretsRepo(db));
    for (let round = 0; round < ROUNDS; round++) {
      const values = await Promise.all(secrets.map((repo, i) => repo.getOrCreate(`secret-${round}`, () => `value-${i}`)));
      expect(new Set(values).size).toBe(1);
      expect(await secrets[2]!.get(`secret-${round}`)).toBe(values[0]);
    }
  }, 30_000);

  test("two processes registering one node name at once: one gets it, the other is told who holds it", async () => {
    const repos = each((db) => new NodesRepo(db));
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(
        repos.map((repo, i) => repo.register({ name: `node-${round}`, instance: `instance-${i}`, version: "test" }, LEASE, at(0))),
      );
      const won = answers.filter((answer) => answer.ok);
      expect(won).toHaveLength(1);
      const refused = answers.filter((answer) => !answer.ok);
      const holder = answers.findIndex((answer) => answer.ok);
      for (const answer of refused) expect(answer).toMatchObject({ ok: false, holder: { name: `node-${round}`, instance: `instance-${holder}` } });
    }
  }, 30_000);
});

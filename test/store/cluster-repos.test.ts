import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { NodesRepo } from "../../src/store/nodes.repo.ts";
import { ScheduleRunsRepo } from "../../src/store/schedule-runs.repo.ts";
import { SecretsRepo } from "../../src/store/secrets.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The cluster's other tables answer alike on SQLite and PostgreSQL (issue 43): nodes register, beat and leave, a
 * live name is refused to another process; a scheduled run fires once; a shared secret is made once. Leases are
 * leases-repo.test.ts; the races between nodes cluster-races.test.ts.
 */

const LEASE = 30_000;
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, seconds));
const DOMAIN = "01900000-0000-7000-8000-0000000000d1";

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`cluster repos on ${dialect.name}`, () => {
    let store: TestDb;
    beforeEach(async () => {
      store = await dialect.open();
    });
    afterEach(() => store.close());

    test("a node registers, beats and is listed; a live name is refused to another process until that one is silent for a lease", async () => {
      const nodes = new NodesRepo(store.db);
      const a1 = { name: "node-a", instance: "i-1", version: "1.0.0" };
      expect(await nodes.register(a1, LEASE, at(0))).toEqual({ ok: true, replaced: false });
      expect(await nodes.register({ name: "node-b", instance: "i-2", version: "1.0.1" }, LEASE, at(1))).toEqual({ ok: true, replaced: false });
      expect(await nodes.heartbeat("node-a", "i-1", at(20))).toBe(true);
      expect(await nodes.list()).toEqual([
        { name: "node-a", instance: "i-1", version: "1.0.0", started_at: at(0).toISOString(), heartbeat_at: at(20).toISOString() },
        { name: "node-b", instance: "i-2", version: "1.0.1", started_at: at(1).toISOString(), heartbeat_at: at(1).toISOString() },
      ]);
      // A second process started with node-a's name while node-a beats.
      const a2 = { name: "node-a", instance: "i-3", version: "1.0.2" };
      expect(await nodes.register(a2, LEASE, at(49))).toEqual({ ok: false, holder: expect.objectContaining({ instance: "i-1" }) });
      // The same process registering again (a retried start) keeps its name.
      expect(await nodes.register(a1, LEASE, at(49))).toEqual({ ok: true, replaced: false });
      // node-a falls silent for a lease: the new process takes the name, and the old one learns it at its next beat.
      expect(await nodes.register(a2, LEASE, at(79))).toEqual({ ok: true, replaced: true });
      expect(await nodes.heartbeat("node-a", "i-1", at(80))).toBe(false);
      expect(await nodes.leave("node-a", "i-1")).toBe(false);
      expect(await nodes.leave("node-a", "i-3")).toBe(true);
      expect((await nodes.list()).map((node) => node.name)).toEqual(["node-b"]);
    });

    test("a scheduled run fires once per domain and due time; old runs are pruned; a deleted domain takes its runs", async () => {
      await store.db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ($id, 'runs.test', 'https://runs.test/', 't')", { id: DOMAIN });
      const runs = new ScheduleRunsRepo(store.db);
      expect(await runs.fireOnce(DOMAIN, at(0), "node-a")).toBe(true);
      expect(await runs.fireOnce(DOMAIN, at(0), "node-b")).toBe(false);
      expect(await runs.fireOnce(DOMAIN, at(0), "node-a")).toBe(false);
      expect(await runs.fireOnce(DOMAIN, at(60), "node-b")).toBe(true);
      const fired = await runs.ofDomain(DOMAIN, 10);
      expect(fired.map((run) => [run.due_at, run.node])).toEqual([
        [at(60).toISOString(), "node-b"],
        [at(0).toISOString(), "node-a"],
      ]);
      expect(fired[0]!.fired_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(await runs.pruneBefore(at(30))).toBe(1);
      expect(await runs.ofDomain(DOMAIN, 10)).toHaveLength(1);
      await store.db.run("DELETE FROM domains WHERE id = $id", { id: DOMAIN });
      expect(await runs.ofDomain(DOMAIN, 10)).toEqual([]);
    });

    test("a secret is made once and read back; deleting it lets the next ask make a new one", async () => {
      const secrets = new SecretsRepo(store.db);
      expect(await secrets.get("session_key")).toBeUndefined();
      expect(await secrets.getOrCreate("session_key", () => "first")).toBe("first");
      expect(await secrets.getOrCreate("session_key", () => "second")).toBe("first");
      expect(await secrets.get("session_key")).toBe("first");
      expect(await secrets.delete("session_key")).toBe(true);
      expect(await secrets.getOrCreate("session_key", () => "third")).toBe("third");
    });
  });
}

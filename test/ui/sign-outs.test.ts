import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { EndedSessionsRepo } from "../../src/store/ended-sessions.repo.ts";
import { SESSION_MAX_AHEAD_MS, SessionCodec } from "../../src/ui/session.ts";
import { SignOuts } from "../../src/ui/sign-outs.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * Sign-outs (issue 43): memory alone as before; on the appliance written through and loaded again at start (a
 * restart keeps them) with reads answered from memory; on a PostgreSQL store read by other nodes from the table.
 * Two dashboards over one PostgreSQL database: test/ui/sign-out-across-nodes.test.ts.
 */

const KEY_ID = "0191c2a0-0000-7000-8000-000000000001";
const codec = new SessionCodec(randomBytes(32));

test("without a store a sign-out is remembered in memory, answered without a promise", async () => {
  const signOuts = new SignOuts();
  const { session } = codec.issue(KEY_ID);
  expect(signOuts.isEnded(session)).toBe(false);
  await signOuts.end(session);
  expect(signOuts.isEnded(session)).toBe(true);
  expect(new SignOuts().isEnded(session)).toBe(false);
});

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`sign-outs over the store on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: EndedSessionsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new EndedSessionsRepo(store.db);
    });
    afterEach(() => store.close());

    test("a sign-out is written to the store, and a process started later refuses the session", async () => {
      const first = await SignOuts.load(repo, false);
      const { session } = codec.issue(KEY_ID);
      const kept = codec.issue(KEY_ID).session;
      await first.end(session);
      expect(await repo.has(session.nonce)).toBe(true);
      const restarted = await SignOuts.load(repo, false);
      // Loaded into memory: the appliance's read is still a map lookup, never a promise.
      expect(restarted.isEnded(session)).toBe(true);
      expect(restarted.isEnded(kept)).toBe(false);
    });

    test("shared: a sign-out another instance wrote is found in the store, then remembered", async () => {
      const a = new SignOuts({ store: repo, shared: true });
      const b = new SignOuts({ store: repo, shared: true });
      const { session } = codec.issue(KEY_ID);
      expect(await b.isEnded(session)).toBe(false);
      await a.end(session);
      expect(await b.isEnded(session)).toBe(true);
      await repo.prune(new Date(session.expiresAt + 1));
      // Remembered after the first answer: no second query.
      expect(b.isEnded(session)).toBe(true);
    });

    test("a sign-out prunes the rows of sessions that can no longer be accepted", async () => {
      const signOuts = new SignOuts({ store: repo, shared: false });
      const now = Date.UTC(2026, 10, 28, 12);
      const old = codec.issue(KEY_ID, now - 2 * SESSION_MAX_AHEAD_MS).session;
      await signOuts.end(old, old.expiresAt - 1);
      const current = codec.issue(KEY_ID, now).session;
      await signOuts.end(current, now);
      expect(await repo.has(old.nonce)).toBe(false);
      expect(await repo.has(current.nonce)).toBe(true);
    });
  });
}

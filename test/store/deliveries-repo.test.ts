import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ChannelsRepo } from "../../src/store/channels.repo.ts";
import type { Db } from "../../src/store/db.ts";
import { type AttemptResult, DeliveriesRepo, type DeliveryTarget } from "../../src/store/deliveries.repo.ts";
import { WebhooksRepo } from "../../src/store/webhooks.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The deliveries repo answers alike on SQLite and PostgreSQL (issue 43): due deliveries of active targets in
 * order, an attempt recorded with the delivery's state and the target's failure streak in one transaction,
 * switching a target off kills its pending deliveries, redelivery, paging with attempts, counts by state.
 */

const HOOK: DeliveryTarget = { kind: "webhook", id: "01900000-0000-7000-8000-0000000000a1" };
const CHANNEL: DeliveryTarget = { kind: "channel", id: "01900000-0000-7000-8000-0000000000c1" };
const delivery = (n: number) => `01900000-0000-7000-8000-00000000000${n}`;

async function queue(db: Db, n: number, target: DeliveryTarget, dueAt: string): Promise<void> {
  await db.run(
    `INSERT INTO webhook_deliveries (id, webhook_id, channel_id, event, payload, next_attempt_at, created_at)
     VALUES ($id, $webhookId, $channelId, 'crawl.completed', '{}', $dueAt, $createdAt)`,
    {
      id: delivery(n),
      webhookId: target.kind === "webhook" ? target.id : null,
      channelId: target.kind === "channel" ? target.id : null,
      dueAt,
      createdAt: `2026-11-28T10:00:0${n}.000Z`,
    },
  );
}

function result(n: number, attempt: number, succeeded: boolean, at: string): AttemptResult {
  return {
    attempt: {
      delivery_id: delivery(n),
      attempt,
      status_code: succeeded ? 200 : 500,
      error: succeeded ? null : "HTTP 500",
      duration_ms: 12,
      response_body: succeeded ? "ok" : "down",
      attempted_at: at,
    },
    state: succeeded ? "delivered" : "pending",
    nextAttemptAt: succeeded ? null : "2026-11-28T11:00:00.000Z",
    succeeded,
  };
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`deliveries repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: DeliveriesRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new DeliveriesRepo(store.db);
      await new WebhooksRepo(store.db).insert({
        id: HOOK.id,
        url: "https://hooks.example/in",
        name: null,
        events: ["crawl.completed"],
        secret: "whsec_1",
        createdAt: "2026-11-28T09:00:00.000Z",
      });
      await new ChannelsRepo(store.db).insert({
        id: CHANNEL.id,
        name: "team",
        kind: "slack",
        settings: {},
        secrets: { url: "https://hooks.slack.com/services/x" },
        notifyWhen: "changed",
        domainIds: null,
        createdAt: "2026-11-28T09:00:00.000Z",
      });
      await queue(store.db, 1, HOOK, "2026-11-28T10:00:02.000Z");
      await queue(store.db, 2, HOOK, "2026-11-28T10:00:01.000Z");
      await queue(store.db, 3, CHANNEL, "2026-11-28T10:00:03.000Z");
      await queue(store.db, 4, HOOK, "2026-11-28T12:00:00.000Z");
    });
    afterEach(() => store.close());

    test("due deliveries come oldest due first with their target, skipping busy ones and those not yet due", async () => {
      const now = "2026-11-28T10:30:00.000Z";
      const due = await repo.due(now, 10, new Set());
      expect(due.map((row) => row.id)).toEqual([delivery(2), delivery(1), delivery(3)]);
      expect(due.map((row) => row.target)).toEqual([HOOK, HOOK, CHANNEL]);
      expect(due[0]).toMatchObject({ attempts: 0, failing_since: null, state: "pending" });
      expect((await repo.due(now, 1, new Set([delivery(2)]))).map((row) => row.id)).toEqual([delivery(1)]);
    });

    test("attempts are logged in order with the state and failure streak; a success ends the streak", async () => {
      expect(await repo.nextAttemptNumber(delivery(1))).toBe(1);
      await repo.recordAttempt(HOOK, result(1, 1, false, "2026-11-28T10:30:00.000Z"));
      await repo.recordAttempt(HOOK, result(2, 1, false, "2026-11-28T10:31:00.000Z"));
      expect(await repo.nextAttemptNumber(delivery(1))).toBe(2);
      const failing = await repo.due("2026-11-28T11:30:00.000Z", 10, new Set());
      expect(failing.find((row) => row.id === delivery(1))).toMatchObject({ attempts: 1, last_status_code: 500, failing_since: "2026-11-28T10:30:00.000Z" });

      await repo.recordAttempt(HOOK, result(1, 2, true, "2026-11-28T11:30:00.000Z"));
      const entry = await repo.withAttempts(delivery(1));
      expect(entry?.delivery).toMatchObject({ state: "delivered", attempts: 2, delivered_at: "2026-11-28T11:30:00.000Z", next_attempt_at: null });
      expect(entry?.attempts.map((row) => [row.attempt, row.status_code, row.duration_ms])).toEqual([
        [1, 500, 12],
        [2, 200, 12],
      ]);
      expect((await repo.due("2026-11-28T11:30:00.000Z", 10, new Set())).find((row) => row.id === delivery(2))?.failing_since).toBeNull();
      expect(await repo.withAttempts("01900000-0000-7000-8000-0000000000ff")).toBeUndefined();
    });

    test("a target switched off has its pending deliveries killed and is no longer due; switched on it is again", async () => {
      await repo.setActive(HOOK, false, "the endpoint answered 410 Gone");
      expect((await repo.due("2026-11-28T13:00:00.000Z", 10, new Set())).map((row) => row.id)).toEqual([delivery(3)]);
      expect(await repo.find(HOOK, delivery(4))).toMatchObject({
        state: "dead",
        next_attempt_at: null,
        last_error: "webhook disabled: the endpoint answered 410 Gone",
      });
      expect(await repo.countByState("webhook")).toEqual({ dead: 3 });
      expect(await repo.countByState("channel")).toEqual({ pending: 1 });

      await repo.setActive(HOOK, true, null);
      expect(await repo.requeue(delivery(4), "2026-11-28T13:00:00.000Z")).toBe(true);
      expect(await repo.requeue(delivery(4), "2026-11-28T13:00:00.000Z")).toBe(false); // pending already
      expect((await repo.due("2026-11-28T13:00:00.000Z", 10, new Set())).map((row) => row.id)).toEqual([delivery(3), delivery(4)]);
    });

    test("a target's deliveries are paged newest first with their attempts, counted, and found only as its own", async () => {
      await repo.recordAttempt(HOOK, result(1, 1, true, "2026-11-28T10:30:00.000Z"));
      const page = await repo.page(HOOK, 0, 2);
      expect(page.map((entry) => entry.delivery.id)).toEqual([delivery(4), delivery(2)]);
      expect((await repo.page(HOOK, 2, 2)).map((entry) => [entry.delivery.id, entry.attempts.length])).toEqual([[delivery(1), 1]]);
      expect(await repo.count(HOOK)).toBe(3);
      expect(await repo.count(CHANNEL)).toBe(1);
      expect(await repo.find(CHANNEL, delivery(1))).toBeUndefined();
      expect((await repo.find(CHANNEL, delivery(3)))?.channel_id).toBe(CHANNEL.id);
    });
  });
}

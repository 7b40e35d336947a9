import { afterEach, beforeEach, expect, test } from "bun:test";
import { silentLogger } from "../../src/core/logger.ts";
import type { Db, Params } from "../../src/store/db.ts";
import { DeliveriesRepo, type DueDelivery } from "../../src/store/deliveries.repo.ts";
import { WebhooksRepo } from "../../src/store/webhooks.repo.ts";
import type { AttemptOutcome } from "../../src/webhooks/attempt.ts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The dispatcher's looks at the outbox never overlap (issue 43: the store answers asynchronously, and on
 * PostgreSQL a look takes a round trip). Were they to, a look started while another waited for the store would
 * read the same due delivery and, once the first look had sent it and the receiver had answered, send it again.
 * The store's answers to `due` are held here until the test lets them go, standing for a slow database; the
 * queries themselves are real.
 */

const HOOK_ID = "01900000-0000-7000-8000-0000000000a1";
const DELIVERY_ID = "01900000-0000-7000-8000-000000000001";

/** A Db whose reads of many rows (the dispatcher's `due`) wait, after running, until `release()`. */
class HeldReads implements Db {
  readonly dialect;
  holding = true;
  private readonly held: (() => void)[] = [];

  constructor(private readonly inner: Db) {
    this.dialect = inner.dialect;
  }

  /** How many answers are being held. */
  get waiting(): number {
    return this.held.length;
  }

  /** Lets the oldest held answer go. */
  releaseOne(): void {
    this.held.shift()?.();
  }

  /** Lets every held answer go, and stops holding. */
  release(): void {
    this.holding = false;
    for (const go of this.held.splice(0)) go();
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    const rows = await this.inner.all<T>(sql, params);
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    return rows;
  }

  get<T>(sql: string, params?: Params) {
    return this.inner.get<T>(sql, params);
  }

  run(sql: string, params?: Params) {
    return this.inner.run(sql, params);
  }

  transaction<T>(fn: (tx: Db) => Promise<T>) {
    return this.inner.transaction(fn);
  }
}

let store: TestDb;
let receiver: ReturnType<typeof Bun.serve>;
const received: string[] = [];

beforeEach(async () => {
  received.length = 0;
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      received.push(request.headers.get("x-delivery-id") ?? "");
      return new Response("ok");
    },
  });
  store = await DIALECTS[0]!.open();
  await new WebhooksRepo(store.db).insert({
    id: HOOK_ID,
    url: "http://127.0.0.1/",
    name: null,
    events: ["crawl.completed"],
    secret: "s",
    createdAt: "2026-11-28T09:00:00.000Z",
  });
  await store.db.run(
    `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, next_attempt_at) VALUES ($id, $hook, 'crawl.completed', '{}', '2026-11-28T09:00:00.000Z')`,
    { id: DELIVERY_ID, hook: HOOK_ID },
  );
});
afterEach(async () => {
  await receiver.stop(true);
  await store.close();
});

test("a look asked for while one waits on the store runs after it, reads the delivery as sent, and sends nothing twice", async () => {
  const db = new HeldReads(store.db);
  const repo = new DeliveriesRepo(db);
  const send = async (delivery: DueDelivery): Promise<AttemptOutcome> => {
    const started = performance.now();
    const answer = await fetch(`http://127.0.0.1:${receiver.port}/`, { method: "POST", headers: { "x-delivery-id": delivery.id }, body: delivery.payload });
    return { kind: "delivered", statusCode: answer.status, durationMs: performance.now() - started, responseBody: await answer.text() };
  };
  const dispatcher = new WebhookDispatcher({ repo, send, scheduleMs: [1_000], disableAfterMs: 60_000, maxConcurrent: 4, logger: silentLogger, pollMs: 60_000 });

  dispatcher.start(); // the first look reads the delivery as due; its answer is held
  await Bun.sleep(0);
  expect(db.waiting).toBe(1);
  dispatcher.wake(); // a second look is asked for before the first has sent anything
  await Bun.sleep(0);

  // The first look goes on: it sends the delivery, which the receiver takes and the store records as delivered.
  const looksWaiting = db.waiting;
  db.releaseOne();
  for (let i = 0; i < 500 && (await repo.find({ kind: "webhook", id: HOOK_ID }, DELIVERY_ID))?.state !== "delivered"; i++) await Bun.sleep(10);
  // Then every other look goes on, with what it read.
  db.release();
  await Bun.sleep(20);
  await dispatcher.stop(AbortSignal.timeout(5_000));

  expect(received).toEqual([DELIVERY_ID]);
  expect((await repo.find({ kind: "webhook", id: HOOK_ID }, DELIVERY_ID))?.state).toBe("delivered");
  expect(looksWaiting).toBe(1); // the second look waited for the first instead of reading the store alongside it
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LeasedDeliveryClaims } from "../../src/cluster/delivery-claims.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { Db } from "../../src/store/db.ts";
import { DeliveriesRepo, type DueDelivery } from "../../src/store/deliveries.repo.ts";
import { LeaseLostError, LeasesRepo } from "../../src/store/leases.repo.ts";
import { storeNow } from "../../src/store/store-clock.ts";
import { WebhooksRepo } from "../../src/store/webhooks.repo.ts";
import type { AttemptOutcome } from "../../src/webhooks/attempt.ts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { postgresNodes } from "../helpers/postgres-nodes.ts";

/**
 * Three nodes' dispatchers sending from one PostgreSQL store to one real receiver: every delivery reaches it
 * exactly once, each attempt recorded once, and never two attempts at one target at the same time.
 */

const HOOKS = ["01900000-0000-7000-8000-0000000000b1", "01900000-0000-7000-8000-0000000000b2", "01900000-0000-7000-8000-0000000000b3"];
const DELIVERIES = 60;

describe.skipIf(!HAS_POSTGRES)("deliveries sent by three nodes", () => {
  let nodes: { dbs: Db[]; close(): Promise<void> };
  let receiver: ReturnType<typeof Bun.serve>;
  const received: string[] = [];
  let inFlight = new Map<string, number>();
  let overlapped = 0;

  beforeAll(async () => {
    nodes = await postgresNodes(3);
    receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const hook = new URL(request.url).pathname.slice(1);
        inFlight.set(hook, (inFlight.get(hook) ?? 0) + 1);
        if (inFlight.get(hook)! > 1) overlapped++;
        await Bun.sleep(5);
        inFlight.set(hook, inFlight.get(hook)! - 1);
        received.push(request.headers.get("x-delivery-id") ?? "");
        return new Response("ok");
      },
    });
    const db = nodes.dbs[0]!;
    for (const id of HOOKS)
      await new WebhooksRepo(db).insert({
        id,
        url: "http://127.0.0.1/",
        name: null,
        events: ["crawl.completed"],
        secret: "s",
        createdAt: "2026-11-28T09:00:00.000Z",
      });
    for (let i = 0; i < DELIVERIES; i++) {
      await db.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, next_attempt_at) VALUES ($id, $hook, 'crawl.completed', '{}', '2026-11-28T09:00:00.000Z')`,
        { id: `01900000-0000-7000-8000-${String(i).padStart(12, "0")}`, hook: HOOKS[i % HOOKS.length]! },
      );
    }
  });
  afterAll(async () => {
    await receiver?.stop(true);
    await nodes?.close();
  });

  test("every delivery reaches the receiver once; attempts are recorded once each; one attempt at a time per target", async () => {
    const dispatchers = nodes.dbs.map((db, i) => {
      const repo = new DeliveriesRepo(db);
      const send = async (delivery: DueDelivery): Promise<AttemptOutcome> => {
        const started = performance.now();
        const answer = await fetch(`http://127.0.0.1:${receiver.port}/${delivery.target.id}`, {
          method: "POST",
          headers: { "x-delivery-id": delivery.id },
          body: delivery.payload,
        });
        return { kind: "delivered", statusCode: answer.status, durationMs: performance.now() - started, responseBody: await answer.text() };
      };
      return new WebhookDispatcher({
        repo,
        send,
        scheduleMs: [1_000],
        disableAfterMs: 60_000,
        maxConcurrent: 4,
        logger: silentLogger,
        pollMs: 20,
        claims: new LeasedDeliveryClaims(db, repo, `node-${i}`, 30_000),
      });
    });
    for (const dispatcher of dispatchers) dispatcher.start();
    const db = nodes.dbs[0]!;
    const delivered = async () => {
      const r = await db.all<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'delivered'");
      if (r.length !== 1) console.log("ODD", r);
      return r[0]?.n ?? -1;
    };
    for (let i = 0; i < 1_500 && (await delivered()) < DELIVERIES; i++) await Bun.sleep(20);
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
    expect(received).toHaveLength(DELIVERIES);
    expect(new Set(received).size).toBe(DELIVERIES);
    expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM webhook_attempts"))!.n).toBe(DELIVERIES);
    expect(overlapped).toBe(0);
    // The target leases are gone with the attempts: nothing is left held.
    expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM work_leases"))!.n).toBe(0);
    inFlight = new Map();
  }, 60_000);

  test("an attempt is not recorded by a node whose target lease was taken over meanwhile", async () => {
    const [a, b] = nodes.dbs as [Db, Db];
    const key = `webhook:${HOOKS[0]}`;
    const now = await storeNow(a);
    const fence = (await new LeasesRepo(a).claim("delivery-target", key, "node-a", 1, now))!;
    await Bun.sleep(5);
    expect(await new LeasesRepo(b).claim("delivery-target", key, "node-b", 30_000, await storeNow(b))).toBe(fence + 1);
    const id = "01900000-0000-7000-8000-000000000000";
    const refused = await new DeliveriesRepo(a)
      .recordAttempt(
        { kind: "webhook", id: HOOKS[0]! },
        {
          attempt: { delivery_id: id, attempt: 2, status_code: 200, error: null, duration_ms: 1, response_body: "", attempted_at: now.toISOString() },
          state: "delivered",
          nextAttemptAt: null,
          succeeded: true,
        },
        { kind: "delivery-target", key, node: "node-a", fence },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LeaseLostError);
    expect((await a.get<{ n: number }>("SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = $id", { id }))!.n).toBe(1);
  });
});

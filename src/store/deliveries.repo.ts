import type { Db } from "./db.ts";
import { LeaseLostError, LeasesRepo, type HeldLease } from "./leases.repo.ts";
import type { DeliveryState } from "./schema.ts";

/**
 * The outbox as the dispatcher and the delivery logs read it: deliveries of webhooks and of notification
 * channels live in one table (webhook_deliveries, written by outbox.repo.ts), each row naming exactly one
 * target. Due deliveries, the attempt log, the failure streak and switching a target off work alike for both
 * kinds; the target's kind picks the column and table from a fixed map, never from input. No rules here
 * (webhooks/dispatcher.ts and the services hold them). SQL over the store's Db (store/db.ts), the same on both stores.
 */

/** Whose delivery: a webhook's or a notification channel's. */
export interface DeliveryTarget {
  kind: "webhook" | "channel";
  id: string;
}

const TARGET_COLUMN = { webhook: "webhook_id", channel: "channel_id" } as const;
const TARGET_TABLE = { webhook: "webhooks", channel: "channels" } as const;

export interface DeliveryRecord {
  id: string;
  webhook_id: string | null;
  channel_id: string | null;
  event: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: string;
  delivered_at: string | null;
}

export interface AttemptRecord {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string;
  attempted_at: string;
}

/** A due delivery with its target and the target's failure streak. */
export interface DueDelivery extends DeliveryRecord {
  target: DeliveryTarget;
  failing_since: string | null;
}

/** What one attempt changed: the log row, and the delivery's new state. */
export interface AttemptResult {
  attempt: AttemptRecord;
  state: DeliveryState;
  nextAttemptAt: string | null;
  succeeded: boolean;
}

/** The target a delivery row names. */
export function targetOf(row: Pick<DeliveryRecord, "webhook_id" | "channel_id">): DeliveryTarget {
  return row.webhook_id !== null ? { kind: "webhook", id: row.webhook_id } : { kind: "channel", id: row.channel_id! };
}

export class DeliveriesRepo {
  constructor(private readonly db: Db) {}

  /** Pending deliveries of active targets due at `now`, oldest due first, skipping `busy` ones. */
  async due(now: string, limit: number, busy: ReadonlySet<string>): Promise<DueDelivery[]> {
    const rows = await this.db.all<DeliveryRecord & { failing_since: string | null }>(
      `SELECT d.*, COALESCE(w.failing_since, c.failing_since) AS failing_since FROM webhook_deliveries d
       LEFT JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN channels c ON c.id = d.channel_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= $now AND (w.active = 1 OR c.active = 1)
       ORDER BY d.next_attempt_at, d.id LIMIT $limit`,
      { now, limit: limit + busy.size },
    );
    return rows
      .filter((row) => !busy.has(row.id))
      .slice(0, limit)
      .map((row) => ({ ...row, target: targetOf(row) }));
  }

  /**
   * Records one attempt and the delivery's new state, and keeps the target's failure streak, in one transaction.
   * With `lease` (several nodes), nothing is recorded unless the sender still holds it: LeaseLostError.
   */
  async recordAttempt(target: DeliveryTarget, result: AttemptResult, lease?: HeldLease): Promise<void> {
    const { attempt } = result;
    await this.db.transaction(async (tx) => {
      if (lease !== undefined && !(await new LeasesRepo(tx).holds(lease.kind, lease.key, lease.node, lease.fence))) throw new LeaseLostError(lease);
      await tx.run(
        `INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, response_body, attempted_at)
         VALUES ($deliveryId, $attempt, $statusCode, $error, $durationMs, $responseBody, $attemptedAt)`,
        {
          deliveryId: attempt.delivery_id,
          attempt: attempt.attempt,
          statusCode: attempt.status_code,
          error: attempt.error,
          durationMs: attempt.duration_ms,
          responseBody: attempt.response_body,
          attemptedAt: attempt.attempted_at,
        },
      );
      await tx.run(
        `UPDATE webhook_deliveries SET state = $state, attempts = attempts + 1, next_attempt_at = $next,
           last_error = $error, last_status_code = $statusCode,
           delivered_at = CASE WHEN $succeeded = 1 THEN $at ELSE delivered_at END
         WHERE id = $id`,
        {
          id: attempt.delivery_id,
          state: result.state,
          next: result.nextAttemptAt,
          error: attempt.error,
          statusCode: attempt.status_code,
          succeeded: result.succeeded ? 1 : 0,
          at: attempt.attempted_at,
        },
      );
      const table = TARGET_TABLE[target.kind];
      await tx.run(
        result.succeeded
          ? `UPDATE ${table} SET failing_since = NULL WHERE id = $id`
          : `UPDATE ${table} SET failing_since = COALESCE(failing_since, $at) WHERE id = $id`,
        result.succeeded ? { id: target.id } : { id: target.id, at: attempt.attempted_at },
      );
    });
  }

  /** Whether delivery `id` is still pending and due at `now` after `attempts` attempts: nobody sent it meanwhile. */
  async stillDue(id: string, attempts: number, now: string): Promise<boolean> {
    const row = await this.db.get(
      "SELECT 1 AS due FROM webhook_deliveries WHERE id = $id AND state = 'pending' AND attempts = $attempts AND next_attempt_at <= $now",
      { id, attempts, now },
    );
    return row !== undefined;
  }

  /** Switches a target on or off; switching off kills its pending deliveries with the reason. */
  async setActive(target: DeliveryTarget, active: boolean, reason: string | null, noun = target.kind): Promise<void> {
    const table = TARGET_TABLE[target.kind];
    await this.db.transaction(async (tx) => {
      await tx.run(`UPDATE ${table} SET active = $active, disabled_reason = $reason, failing_since = NULL WHERE id = $id`, {
        id: target.id,
        active: active ? 1 : 0,
        reason: active ? null : reason,
      });
      if (!active) {
        await tx.run(
          `UPDATE webhook_deliveries SET state = 'dead', next_attempt_at = NULL, last_error = $error
           WHERE ${TARGET_COLUMN[target.kind]} = $id AND state = 'pending'`,
          { id: target.id, error: `${noun} disabled: ${reason ?? "by request"}` },
        );
      }
    });
  }

  /** The attempt number the next attempt of a delivery gets in the log (redeliveries keep counting). */
  async nextAttemptNumber(deliveryId: string): Promise<number> {
    return (
      ((await this.db.get<{ n: number | null }>("SELECT MAX(attempt) AS n FROM webhook_attempts WHERE delivery_id = $id", { id: deliveryId }))?.n ?? 0) + 1
    );
  }

  /** One page of a target's deliveries, newest first, each with its attempts in order. */
  async page(target: DeliveryTarget, offset: number, limit: number): Promise<{ delivery: DeliveryRecord; attempts: AttemptRecord[] }[]> {
    const rows = await this.db.all<DeliveryRecord>(
      `SELECT * FROM webhook_deliveries WHERE ${TARGET_COLUMN[target.kind]} = $id ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
      { id: target.id, offset, limit },
    );
    const page: { delivery: DeliveryRecord; attempts: AttemptRecord[] }[] = [];
    for (const delivery of rows) page.push({ delivery, attempts: await this.attemptsOf(delivery.id) });
    return page;
  }

  async count(target: DeliveryTarget): Promise<number> {
    return (
      (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE ${TARGET_COLUMN[target.kind]} = $id`, { id: target.id }))?.n ?? 0
    );
  }

  /** A delivery of `target`, if it has one with that id. */
  find(target: DeliveryTarget, deliveryId: string): Promise<DeliveryRecord | undefined> {
    return this.db.get<DeliveryRecord>(`SELECT * FROM webhook_deliveries WHERE id = $deliveryId AND ${TARGET_COLUMN[target.kind]} = $id`, {
      id: target.id,
      deliveryId,
    });
  }

  /** A delivery with its attempts, in order. */
  async withAttempts(deliveryId: string): Promise<{ delivery: DeliveryRecord; attempts: AttemptRecord[] } | undefined> {
    const delivery = await this.db.get<DeliveryRecord>("SELECT * FROM webhook_deliveries WHERE id = $id", { id: deliveryId });
    if (delivery === undefined) return undefined;
    return { delivery, attempts: await this.attemptsOf(deliveryId) };
  }

  /** Puts an ended delivery back in the queue, due now, with a fresh retry schedule; false when it is pending. */
  async requeue(deliveryId: string, now: string): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $now
       WHERE id = $id AND state != 'pending'`,
      { id: deliveryId, now },
    );
    return result.changes > 0;
  }

  /** How many deliveries of webhooks, or of channels, are in each state (metrics). */
  async countByState(kind: DeliveryTarget["kind"]): Promise<Record<string, number>> {
    const rows = await this.db.all<{ state: string; n: number }>(
      `SELECT state, COUNT(*) AS n FROM webhook_deliveries WHERE ${TARGET_COLUMN[kind]} IS NOT NULL GROUP BY state`,
    );
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  }

  private attemptsOf(deliveryId: string): Promise<AttemptRecord[]> {
    return this.db.all<AttemptRecord>(
      `SELECT delivery_id, attempt, status_code, error, duration_ms, response_body, attempted_at
       FROM webhook_attempts WHERE delivery_id = $id ORDER BY attempt`,
      { id: deliveryId },
    );
  }
}

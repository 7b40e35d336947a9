import type { Database } from "bun:sqlite";
import type { DeliveryState } from "./schema.ts";

/**
 * The outbox as the dispatcher and the delivery logs read it: deliveries of webhooks and of notification
 * channels live in one table (webhook_deliveries, written by outbox.repo.ts), each row naming exactly one
 * target. Due deliveries, the attempt log, the failure streak and switching a target off work alike for both
 * kinds; the target's kind picks the column and table from a fixed map, never from input. No rules here
 * (webhooks/dispatcher.ts and the services hold them).
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
  constructor(private readonly sqlite: Database) {}

  /** Pending deliveries of active targets due at `now`, oldest due first, skipping `busy` ones. */
  due(now: string, limit: number, busy: ReadonlySet<string>): DueDelivery[] {
    const rows = this.sqlite
      .query<DeliveryRecord & { failing_since: string | null }, { now: string; limit: number }>(
        `SELECT d.*, COALESCE(w.failing_since, c.failing_since) AS failing_since FROM webhook_deliveries d
         LEFT JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN channels c ON c.id = d.channel_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= $now AND (w.active = 1 OR c.active = 1)
         ORDER BY d.next_attempt_at, d.id LIMIT $limit`,
      )
      .all({ now, limit: limit + busy.size });
    return rows
      .filter((row) => !busy.has(row.id))
      .slice(0, limit)
      .map((row) => ({ ...row, target: targetOf(row) }));
  }

  /** Records one attempt and the delivery's new state, and keeps the target's failure streak, in one transaction. */
  recordAttempt(target: DeliveryTarget, result: AttemptResult): void {
    const { attempt } = result;
    this.sqlite.transaction(() => {
      this.sqlite
        .query(
          `INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, response_body, attempted_at)
           VALUES ($deliveryId, $attempt, $statusCode, $error, $durationMs, $responseBody, $attemptedAt)`,
        )
        .run({
          deliveryId: attempt.delivery_id,
          attempt: attempt.attempt,
          statusCode: attempt.status_code,
          error: attempt.error,
          durationMs: attempt.duration_ms,
          responseBody: attempt.response_body,
          attemptedAt: attempt.attempted_at,
        });
      this.sqlite
        .query(
          `UPDATE webhook_deliveries SET state = $state, attempts = attempts + 1, next_attempt_at = $next,
             last_error = $error, last_status_code = $statusCode,
             delivered_at = CASE WHEN $succeeded = 1 THEN $at ELSE delivered_at END
           WHERE id = $id`,
        )
        .run({
          id: attempt.delivery_id,
          state: result.state,
          next: result.nextAttemptAt,
          error: attempt.error,
          statusCode: attempt.status_code,
          succeeded: result.succeeded ? 1 : 0,
          at: attempt.attempted_at,
        });
      const table = TARGET_TABLE[target.kind];
      this.sqlite
        .query(
          result.succeeded
            ? `UPDATE ${table} SET failing_since = NULL WHERE id = $id`
            : `UPDATE ${table} SET failing_since = COALESCE(failing_since, $at) WHERE id = $id`,
        )
        .run(result.succeeded ? { id: target.id } : { id: target.id, at: attempt.attempted_at });
    })();
  }

  /** Switches a target on or off; switching off kills its pending deliveries with the reason. */
  setActive(target: DeliveryTarget, active: boolean, reason: string | null, noun = target.kind): void {
    const table = TARGET_TABLE[target.kind];
    this.sqlite.transaction(() => {
      this.sqlite
        .query(`UPDATE ${table} SET active = $active, disabled_reason = $reason, failing_since = NULL WHERE id = $id`)
        .run({ id: target.id, active: active ? 1 : 0, reason: active ? null : reason });
      if (!active) {
        this.sqlite
          .query(
            `UPDATE webhook_deliveries SET state = 'dead', next_attempt_at = NULL, last_error = $error
             WHERE ${TARGET_COLUMN[target.kind]} = $id AND state = 'pending'`,
          )
          .run({ id: target.id, error: `${noun} disabled: ${reason ?? "by request"}` });
      }
    })();
  }

  /** The attempt number the next attempt of a delivery gets in the log (redeliveries keep counting). */
  nextAttemptNumber(deliveryId: string): number {
    return (
      (this.sqlite.query<{ n: number | null }, { id: string }>("SELECT MAX(attempt) AS n FROM webhook_attempts WHERE delivery_id = $id").get({ id: deliveryId })
        ?.n ?? 0) + 1
    );
  }

  /** One page of a target's deliveries, newest first, each with its attempts in order. */
  page(target: DeliveryTarget, offset: number, limit: number): { delivery: DeliveryRecord; attempts: AttemptRecord[] }[] {
    const rows = this.sqlite
      .query<DeliveryRecord, { id: string; offset: number; limit: number }>(
        `SELECT * FROM webhook_deliveries WHERE ${TARGET_COLUMN[target.kind]} = $id ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
      )
      .all({ id: target.id, offset, limit });
    return rows.map((delivery) => ({ delivery, attempts: this.attemptsOf(delivery.id) }));
  }

  count(target: DeliveryTarget): number {
    return (
      this.sqlite
        .query<{ n: number }, { id: string }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE ${TARGET_COLUMN[target.kind]} = $id`)
        .get({ id: target.id })?.n ?? 0
    );
  }

  /** A delivery of `target`, if it has one with that id. */
  find(target: DeliveryTarget, deliveryId: string): DeliveryRecord | undefined {
    return (
      this.sqlite
        .query<DeliveryRecord, { id: string; deliveryId: string }>(
          `SELECT * FROM webhook_deliveries WHERE id = $deliveryId AND ${TARGET_COLUMN[target.kind]} = $id`,
        )
        .get({ id: target.id, deliveryId }) ?? undefined
    );
  }

  /** A delivery with its attempts, in order. */
  withAttempts(deliveryId: string): { delivery: DeliveryRecord; attempts: AttemptRecord[] } | undefined {
    const delivery = this.sqlite.query<DeliveryRecord, { id: string }>("SELECT * FROM webhook_deliveries WHERE id = $id").get({ id: deliveryId });
    if (delivery === null) return undefined;
    return { delivery, attempts: this.attemptsOf(deliveryId) };
  }

  /** Puts an ended delivery back in the queue, due now, with a fresh retry schedule; false when it is pending. */
  requeue(deliveryId: string, now: string): boolean {
    return (
      this.sqlite
        .query(
          `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $now
           WHERE id = $id AND state != 'pending'`,
        )
        .run({ id: deliveryId, now }).changes > 0
    );
  }

  /** How many deliveries of webhooks, or of channels, are in each state (metrics). */
  countByState(kind: DeliveryTarget["kind"]): Record<string, number> {
    const rows = this.sqlite
      .query<{ state: string; n: number }, []>(`SELECT state, COUNT(*) AS n FROM webhook_deliveries WHERE ${TARGET_COLUMN[kind]} IS NOT NULL GROUP BY state`)
      .all();
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  }

  private attemptsOf(deliveryId: string): AttemptRecord[] {
    return this.sqlite
      .query<AttemptRecord, { id: string }>(
        `SELECT delivery_id, attempt, status_code, error, duration_ms, response_body, attempted_at
         FROM webhook_attempts WHERE delivery_id = $id ORDER BY attempt`,
      )
      .all({ id: deliveryId });
  }
}

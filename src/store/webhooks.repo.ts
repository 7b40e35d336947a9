import type { Database } from "bun:sqlite";
import type { DeliveryState } from "./schema.ts";

/**
 * Queries on webhooks, their deliveries (the outbox, written by outbox.repo.ts) and the attempt log; no rules
 * here (services/webhooks.service.ts and webhooks/dispatcher.ts hold them). SQL over bun:sqlite, like the
 * crawls repo; `query()` caches each statement.
 */

export interface WebhookRecord {
  id: string;
  url: string;
  name: string | null;
  events: string[];
  secret: string;
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
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

/** A due delivery with what sending it needs from its webhook. */
export interface DueDelivery extends DeliveryRecord {
  url: string;
  secret: string;
  failing_since: string | null;
}

/** What one attempt changed: the log row, and the delivery's new state. */
export interface AttemptResult {
  attempt: AttemptRecord;
  state: DeliveryState;
  nextAttemptAt: string | null;
  succeeded: boolean;
}

type RawWebhook = Omit<WebhookRecord, "events" | "active"> & { events: string; active: number };

function toWebhook(raw: RawWebhook | null): WebhookRecord | undefined {
  if (raw === null) return undefined;
  return { ...raw, events: JSON.parse(raw.events) as string[], active: raw.active === 1 };
}

const WEBHOOK_COLUMNS = "id, url, name, events, secret, active, disabled_reason, failing_since, created_at";

export class WebhooksRepo {
  constructor(private readonly sqlite: Database) {}

  insert(row: { id: string; url: string; name: string | null; events: string[]; secret: string; createdAt: string }): WebhookRecord {
    this.sqlite
      .query("INSERT INTO webhooks (id, url, name, events, secret, created_at) VALUES ($id, $url, $name, $events, $secret, $createdAt)")
      .run({ ...row, events: JSON.stringify(row.events) });
    return this.findById(row.id)!;
  }

  findById(id: string): WebhookRecord | undefined {
    return toWebhook(this.sqlite.query<RawWebhook, { id: string }>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $id`).get({ id }));
  }

  /** One page of webhooks, newest first. */
  page(offset: number, limit: number): WebhookRecord[] {
    return this.sqlite
      .query<RawWebhook, { offset: number; limit: number }>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
      )
      .all({ offset, limit })
      .map((raw) => toWebhook(raw)!);
  }

  count(): number {
    return this.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhooks").get()?.n ?? 0;
  }

  /**
   * Deletes the webhook with its deliveries and their attempts (pending ones are dropped); false when it did not
   * exist. RETURNING decides, not `changes`: bun:sqlite counts the rows ON DELETE CASCADE removes in it too.
   */
  delete(id: string): boolean {
    return this.sqlite.query<{ id: string }, { id: string }>("DELETE FROM webhooks WHERE id = $id RETURNING id").all({ id }).length > 0;
  }

  /** Changes a webhook's name and/or subscribed events. */
  update(id: string, changes: { name?: string | null; events?: string[] }): void {
    if (changes.name !== undefined) this.sqlite.query("UPDATE webhooks SET name = $name WHERE id = $id").run({ id, name: changes.name });
    if (changes.events !== undefined) {
      this.sqlite.query("UPDATE webhooks SET events = $events WHERE id = $id").run({ id, events: JSON.stringify(changes.events) });
    }
  }

  /** A delivery with its attempts, in order. */
  deliveryWithAttempts(deliveryId: string): { delivery: DeliveryRecord; attempts: AttemptRecord[] } | undefined {
    const delivery = this.sqlite.query<DeliveryRecord, { id: string }>("SELECT * FROM webhook_deliveries WHERE id = $id").get({ id: deliveryId });
    if (delivery === null) return undefined;
    return { delivery, attempts: this.attemptsOf(deliveryId) };
  }

  private attemptsOf(deliveryId: string): AttemptRecord[] {
    return this.sqlite
      .query<AttemptRecord, { id: string }>(
        `SELECT delivery_id, attempt, status_code, error, duration_ms, response_body, attempted_at
         FROM webhook_attempts WHERE delivery_id = $id ORDER BY attempt`,
      )
      .all({ id: deliveryId });
  }

  /** Switches a webhook on or off; switching off kills its pending deliveries with the reason. */
  setActive(id: string, active: boolean, reason: string | null): void {
    this.sqlite.transaction(() => {
      this.sqlite
        .query("UPDATE webhooks SET active = $active, disabled_reason = $reason, failing_since = NULL WHERE id = $id")
        .run({ id, active: active ? 1 : 0, reason: active ? null : reason });
      if (!active) {
        this.sqlite
          .query(
            `UPDATE webhook_deliveries SET state = 'dead', next_attempt_at = NULL, last_error = $error
             WHERE webhook_id = $id AND state = 'pending'`,
          )
          .run({ id, error: `webhook disabled: ${reason ?? "by request"}` });
      }
    })();
  }

  /** Pending deliveries of active webhooks due at `now`, oldest due first, skipping `busy` ones. */
  due(now: string, limit: number, busy: ReadonlySet<string>): DueDelivery[] {
    const rows = this.sqlite
      .query<DueDelivery, { now: string; limit: number }>(
        `SELECT d.*, w.url, w.secret, w.failing_since FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= $now AND w.active = 1
         ORDER BY d.next_attempt_at, d.id LIMIT $limit`,
      )
      .all({ now, limit: limit + busy.size });
    return rows.filter((row) => !busy.has(row.id)).slice(0, limit);
  }

  /** When the next pending delivery falls due, or null when none waits. */
  nextDueAt(): string | null {
    return (
      this.sqlite
        .query<{ at: string | null }, []>(
          `SELECT MIN(d.next_attempt_at) AS at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.state = 'pending' AND w.active = 1`,
        )
        .get()?.at ?? null
    );
  }

  /** Records one attempt and the delivery's new state, and keeps the webhook's failure streak, in one transaction. */
  recordAttempt(webhookId: string, result: AttemptResult): void {
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
      this.sqlite
        .query(
          result.succeeded
            ? "UPDATE webhooks SET failing_since = NULL WHERE id = $id"
            : "UPDATE webhooks SET failing_since = COALESCE(failing_since, $at) WHERE id = $id",
        )
        .run(result.succeeded ? { id: webhookId } : { id: webhookId, at: attempt.attempted_at });
    })();
  }

  /** The attempt number the next attempt of a delivery gets in the log (redeliveries keep counting). */
  nextAttemptNumber(deliveryId: string): number {
    return (
      (this.sqlite
        .query<{ n: number | null }, { id: string }>("SELECT MAX(attempt) AS n FROM webhook_attempts WHERE delivery_id = $id")
        .get({ id: deliveryId })?.n ?? 0) + 1
    );
  }

  /** One page of a webhook's deliveries, newest first, each with its attempts in order. */
  deliveries(webhookId: string, offset: number, limit: number): { delivery: DeliveryRecord; attempts: AttemptRecord[] }[] {
    const rows = this.sqlite
      .query<DeliveryRecord, { webhookId: string; offset: number; limit: number }>(
        `SELECT * FROM webhook_deliveries WHERE webhook_id = $webhookId ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
      )
      .all({ webhookId, offset, limit });
    return rows.map((delivery) => ({ delivery, attempts: this.attemptsOf(delivery.id) }));
  }

  /** How many deliveries are in each state (metrics). */
  countByState(): Record<string, number> {
    const rows = this.sqlite.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM webhook_deliveries GROUP BY state").all();
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  }

  countDeliveries(webhookId: string): number {
    return (
      this.sqlite.query<{ n: number }, { webhookId: string }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = $webhookId").get({ webhookId })?.n ?? 0
    );
  }

  findDelivery(webhookId: string, deliveryId: string): DeliveryRecord | undefined {
    return (
      this.sqlite
        .query<DeliveryRecord, { webhookId: string; deliveryId: string }>(
          "SELECT * FROM webhook_deliveries WHERE id = $deliveryId AND webhook_id = $webhookId",
        )
        .get({ webhookId, deliveryId }) ?? undefined
    );
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
}

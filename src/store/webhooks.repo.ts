import type { Database } from "bun:sqlite";

/**
 * Queries on webhooks themselves; their deliveries and attempts (shared with notification channels) are
 * deliveries.repo.ts, written by outbox.repo.ts. No rules here (services/webhooks.service.ts and
 * webhooks/dispatcher.ts hold them). SQL over bun:sqlite, like the crawls repo; `query()` caches each statement.
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
}

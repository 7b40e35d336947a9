import type { Db } from "./db.ts";

/**
 * Queries on webhooks themselves; their deliveries and attempts (shared with notification channels) are
 * deliveries.repo.ts, written by outbox.repo.ts. No rules here (services/webhooks.service.ts and
 * webhooks/dispatcher.ts hold them). SQL over the store's Db (store/db.ts), the same on both stores.
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

function toWebhook(raw: RawWebhook | undefined): WebhookRecord | undefined {
  if (raw === undefined) return undefined;
  return { ...raw, events: JSON.parse(raw.events) as string[], active: raw.active === 1 };
}

const WEBHOOK_COLUMNS = "id, url, name, events, secret, active, disabled_reason, failing_since, created_at";

export class WebhooksRepo {
  constructor(private readonly db: Db) {}

  async insert(row: { id: string; url: string; name: string | null; events: string[]; secret: string; createdAt: string }): Promise<WebhookRecord> {
    await this.db.run("INSERT INTO webhooks (id, url, name, events, secret, created_at) VALUES ($id, $url, $name, $events, $secret, $createdAt)", {
      ...row,
      events: JSON.stringify(row.events),
    });
    return (await this.findById(row.id))!;
  }

  async findById(id: string): Promise<WebhookRecord | undefined> {
    return toWebhook(await this.db.get<RawWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $id`, { id }));
  }

  /** One page of webhooks, newest first. */
  async page(offset: number, limit: number): Promise<WebhookRecord[]> {
    const rows = await this.db.all<RawWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`, {
      offset,
      limit,
    });
    return rows.map((raw) => toWebhook(raw)!);
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhooks"))?.n ?? 0;
  }

  /**
   * Deletes the webhook with its deliveries and their attempts (pending ones are dropped); false when it did not
   * exist. RETURNING decides, not `changes`: bun:sqlite counts the rows ON DELETE CASCADE removes in it too.
   */
  async delete(id: string): Promise<boolean> {
    return (await this.db.all<{ id: string }>("DELETE FROM webhooks WHERE id = $id RETURNING id", { id })).length > 0;
  }

  /** Changes a webhook's name and/or subscribed events. */
  async update(id: string, changes: { name?: string | null; events?: string[] }): Promise<void> {
    if (changes.name !== undefined) await this.db.run("UPDATE webhooks SET name = $name WHERE id = $id", { id, name: changes.name });
    if (changes.events !== undefined) await this.db.run("UPDATE webhooks SET events = $events WHERE id = $id", { id, events: JSON.stringify(changes.events) });
  }
}

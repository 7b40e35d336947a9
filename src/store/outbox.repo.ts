import type { Database, Statement } from "bun:sqlite";
import type { CrawlEvent } from "../core/crawl-events.ts";
import { newId } from "../core/ids.ts";
import { visibleText } from "../core/visible-text.ts";

/**
 * The webhook outbox's write side: turns events into one pending delivery per subscribed active webhook.
 * Callers run it inside the transaction that makes the state change the events describe, so a crash can
 * never leave a change without its deliveries, or deliveries without their change. The payload is written
 * here once, as the exact bytes every attempt will send.
 */
export class OutboxRepo {
  private readonly subscribers: Statement<{ id: string }, [string]>;
  private readonly insert: Statement<unknown, [string, string, string, string, string, string]>;

  constructor(sqlite: Database) {
    this.subscribers = sqlite.prepare(
      "SELECT id FROM webhooks WHERE active = 1 AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value = ?1)",
    );
    this.insert = sqlite.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
    );
  }

  /** Queues `events` for every active webhook subscribed to each; returns how many deliveries were queued. */
  enqueue(events: CrawlEvent[], now = new Date().toISOString()): number {
    let queued = 0;
    for (const event of events) {
      for (const { id: webhookId } of this.subscribers.all(event.event)) {
        const id = newId();
        // A crawled site's text (a warning quoting it, an error) reaches receivers with no control or bidi character.
        const payload = visibleText(JSON.stringify({ id, event: event.event, timestamp: event.timestamp, data: event.data }));
        this.insert.run(id, webhookId, event.event, payload, now, now);
        queued++;
      }
    }
    return queued;
  }
}

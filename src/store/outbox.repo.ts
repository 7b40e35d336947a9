import type { Database, Statement } from "bun:sqlite";
import type { CrawlEvent } from "../core/crawl-events.ts";
import type { NotifyWhen } from "../core/channels.ts";
import { newId } from "../core/ids.ts";
import { visibleText } from "../core/visible-text.ts";

/**
 * The outbox's write side: turns events into one pending delivery per subscribed active webhook, and a crawl's
 * digest into one per notification channel that wants it. Callers run it inside the transaction that makes the
 * state change the events describe, so a crash can never leave a change without its deliveries, or deliveries
 * without their change. The payload is written here once, as the exact bytes every attempt will send (a
 * channel's attempts format that digest for their destination).
 */
export class OutboxRepo {
  private readonly subscribers: Statement<{ id: string }, [string]>;
  private readonly insert: Statement<unknown, [string, string, string, string, string, string]>;
  private readonly channels: Statement<{ id: string; notify_when: NotifyWhen }, [string]>;
  private readonly insertForChannel: Statement<unknown, [string, string, string, string, string, string]>;

  constructor(sqlite: Database) {
    this.subscribers = sqlite.prepare("SELECT id FROM webhooks WHERE active = 1 AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value = ?1)");
    this.insert = sqlite.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
    );
    this.channels = sqlite.prepare(
      `SELECT id, notify_when FROM channels WHERE active = 1
         AND (all_domains = 1 OR EXISTS (SELECT 1 FROM channel_domains WHERE channel_id = channels.id AND domain_id = ?1))
       ORDER BY created_at, id`,
    );
    this.insertForChannel = sqlite.prepare(
      `INSERT INTO webhook_deliveries (id, channel_id, event, payload, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
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

  /** The active channels for a domain (every-domain ones included), with when each wants to hear. */
  channelsFor(domainId: string): { id: string; notify_when: NotifyWhen }[] {
    return this.channels.all(domainId);
  }

  /** Queues one delivery of `data` (a digest) to each of `channelIds`, each with its own delivery id. */
  enqueueForChannels(channelIds: readonly string[], event: string, timestamp: string, data: unknown, now: string): void {
    const dataJson = JSON.stringify(data);
    for (const channelId of channelIds) {
      const id = newId();
      const payload = `{"id":${JSON.stringify(id)},"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"data":${dataJson}}`;
      this.insertForChannel.run(id, channelId, event, payload, now, now);
    }
  }
}

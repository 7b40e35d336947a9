import type { CrawlEvent } from "../core/crawl-events.ts";
import type { NotifyWhen } from "../core/channels.ts";
import { newId } from "../core/ids.ts";
import { visibleText } from "../core/visible-text.ts";
import type { Db } from "./db.ts";

/**
 * The outbox's write side: turns events into one pending delivery per subscribed active webhook, and a crawl's
 * digest into one per notification channel that wants it. Callers run it inside the transaction that makes the
 * state change the events describe (over that transaction's Db), so a crash can never leave a change without its
 * deliveries, or deliveries without their change. The payload is written here once, as the exact bytes every
 * attempt will send (a channel's attempts format that digest for their destination).
 */
export class OutboxRepo {
  constructor(private readonly db: Db) {}

  /** Queues `events` for every active webhook subscribed to each; returns how many deliveries were queued. */
  async enqueue(events: CrawlEvent[], now = new Date().toISOString()): Promise<number> {
    let queued = 0;
    for (const event of events) {
      const subscribers = await this.db.all<{ id: string }>(
        `SELECT id FROM webhooks WHERE active = 1 AND $event IN (${this.db.dialect.textElements("webhooks.events")}) ORDER BY created_at, id`,
        { event: event.event },
      );
      for (const { id: webhookId } of subscribers) {
        const id = newId();
        // A crawled site's text (a warning quoting it, an error) reaches receivers with no control or bidi character.
        const payload = visibleText(JSON.stringify({ id, event: event.event, timestamp: event.timestamp, data: event.data }));
        await this.db.run(
          "INSERT INTO webhook_deliveries (id, webhook_id, event, payload, next_attempt_at, created_at) VALUES ($id, $webhookId, $event, $payload, $now, $now)",
          { id, webhookId, event: event.event, payload, now },
        );
        queued++;
      }
    }
    return queued;
  }

  /** The active channels for a domain (every-domain ones included), with when each wants to hear. */
  channelsFor(domainId: string): Promise<{ id: string; notify_when: NotifyWhen }[]> {
    return this.db.all(
      `SELECT id, notify_when FROM channels WHERE active = 1
         AND (all_domains = 1 OR EXISTS (SELECT 1 FROM channel_domains WHERE channel_id = channels.id AND domain_id = $domainId))
       ORDER BY created_at, id`,
      { domainId },
    );
  }

  /** Queues one delivery of `data` (a digest) to each of `channelIds`, each with its own delivery id. */
  async enqueueForChannels(channelIds: readonly string[], event: string, timestamp: string, data: unknown, now: string): Promise<void> {
    const dataJson = JSON.stringify(data);
    for (const channelId of channelIds) {
      const id = newId();
      const payload = `{"id":${JSON.stringify(id)},"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"data":${dataJson}}`;
      await this.db.run(
        "INSERT INTO webhook_deliveries (id, channel_id, event, payload, next_attempt_at, created_at) VALUES ($id, $channelId, $event, $payload, $now, $now)",
        { id, channelId, event, payload, now },
      );
    }
  }
}

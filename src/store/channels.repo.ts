import type { Database } from "bun:sqlite";
import type { ChannelKind, NotifyWhen } from "./schema.ts";

/**
 * Queries on notification channels and the domains each is for; their deliveries are deliveries.repo.ts, queued
 * by outbox.repo.ts. No rules here (services/channels.service.ts holds them). JSON columns are decoded here.
 */

export interface ChannelRecord {
  id: string;
  name: string;
  kind: ChannelKind;
  /** What may be shown: host, port, addresses, a server URL (the destination's schema says which). */
  settings: Record<string, unknown>;
  /** What is never shown or logged: a password, a URL carrying a token, an access token. */
  secrets: Record<string, unknown>;
  notify_when: NotifyWhen;
  /** True: every domain, present and future; false: only `domain_ids`. */
  all_domains: boolean;
  domain_ids: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

type RawChannel = Omit<ChannelRecord, "settings" | "secrets" | "all_domains" | "active" | "domain_ids"> & {
  settings: string;
  secrets: string;
  all_domains: number;
  active: number;
};

const CHANNEL_COLUMNS = "id, name, kind, settings, secrets, notify_when, all_domains, active, disabled_reason, failing_since, created_at";

export class ChannelsRepo {
  constructor(private readonly sqlite: Database) {}

  /** Inserts a channel with the domains it is for, in one transaction. */
  insert(row: {
    id: string;
    name: string;
    kind: ChannelKind;
    settings: Record<string, unknown>;
    secrets: Record<string, unknown>;
    notifyWhen: NotifyWhen;
    domainIds: string[] | null;
    createdAt: string;
  }): ChannelRecord {
    this.sqlite.transaction(() => {
      this.sqlite
        .query(
          `INSERT INTO channels (id, name, kind, settings, secrets, notify_when, all_domains, created_at)
           VALUES ($id, $name, $kind, $settings, $secrets, $notifyWhen, $allDomains, $createdAt)`,
        )
        .run({
          id: row.id,
          name: row.name,
          kind: row.kind,
          settings: JSON.stringify(row.settings),
          secrets: JSON.stringify(row.secrets),
          notifyWhen: row.notifyWhen,
          allDomains: row.domainIds === null ? 1 : 0,
          createdAt: row.createdAt,
        });
      this.setDomains(row.id, row.domainIds);
    })();
    return this.findById(row.id)!;
  }

  findById(id: string): ChannelRecord | undefined {
    const raw = this.sqlite.query<RawChannel, { id: string }>(`SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id = $id`).get({ id });
    return raw === null ? undefined : this.decode(raw);
  }

  /** Every channel, newest first. */
  all(): ChannelRecord[] {
    return this.sqlite
      .query<RawChannel, []>(`SELECT ${CHANNEL_COLUMNS} FROM channels ORDER BY created_at DESC, id DESC`)
      .all()
      .map((raw) => this.decode(raw));
  }

  /** Deletes a channel with its deliveries (pending ones are dropped); false when it did not exist. */
  delete(id: string): boolean {
    return this.sqlite.query<{ id: string }, { id: string }>("DELETE FROM channels WHERE id = $id RETURNING id").all({ id }).length > 0;
  }

  /** Changes a channel's name, when it is told, and/or which domains it is for (null: every domain). */
  update(id: string, changes: { name?: string; notifyWhen?: NotifyWhen; domainIds?: string[] | null }): void {
    this.sqlite.transaction(() => {
      if (changes.name !== undefined) this.sqlite.query("UPDATE channels SET name = $name WHERE id = $id").run({ id, name: changes.name });
      if (changes.notifyWhen !== undefined) {
        this.sqlite.query("UPDATE channels SET notify_when = $when WHERE id = $id").run({ id, when: changes.notifyWhen });
      }
      if (changes.domainIds !== undefined) {
        this.sqlite.query("UPDATE channels SET all_domains = $all WHERE id = $id").run({ id, all: changes.domainIds === null ? 1 : 0 });
        this.setDomains(id, changes.domainIds);
      }
    })();
  }

  /** The names of the given domains that exist, by id. */
  domainNames(ids: readonly string[]): Map<string, string> {
    if (ids.length === 0) return new Map();
    const rows = this.sqlite
      .query<{ id: string; name: string }, { ids: string }>("SELECT id, name FROM domains WHERE id IN (SELECT value FROM json_each($ids))")
      .all({ ids: JSON.stringify(ids) });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  private setDomains(id: string, domainIds: string[] | null): void {
    this.sqlite.query("DELETE FROM channel_domains WHERE channel_id = $id").run({ id });
    for (const domainId of domainIds ?? []) {
      this.sqlite.query("INSERT OR IGNORE INTO channel_domains (channel_id, domain_id) VALUES ($id, $domainId)").run({ id, domainId });
    }
  }

  private decode(raw: RawChannel): ChannelRecord {
    const domainIds =
      raw.all_domains === 1
        ? []
        : this.sqlite
            .query<{ domain_id: string }, { id: string }>("SELECT domain_id FROM channel_domains WHERE channel_id = $id ORDER BY domain_id")
            .all({ id: raw.id })
            .map((row) => row.domain_id);
    return {
      ...raw,
      settings: JSON.parse(raw.settings) as Record<string, unknown>,
      secrets: JSON.parse(raw.secrets) as Record<string, unknown>,
      all_domains: raw.all_domains === 1,
      active: raw.active === 1,
      domain_ids: domainIds,
    };
  }
}

import type { Db } from "./db.ts";
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
  constructor(private readonly db: Db) {}

  /** Inserts a channel with the domains it is for, in one transaction. */
  async insert(row: {
    id: string;
    name: string;
    kind: ChannelKind;
    settings: Record<string, unknown>;
    secrets: Record<string, unknown>;
    notifyWhen: NotifyWhen;
    domainIds: string[] | null;
    createdAt: string;
  }): Promise<ChannelRecord> {
    await this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO channels (id, name, kind, settings, secrets, notify_when, all_domains, created_at)
         VALUES ($id, $name, $kind, $settings, $secrets, $notifyWhen, $allDomains, $createdAt)`,
        {
          id: row.id,
          name: row.name,
          kind: row.kind,
          settings: JSON.stringify(row.settings),
          secrets: JSON.stringify(row.secrets),
          notifyWhen: row.notifyWhen,
          allDomains: row.domainIds === null ? 1 : 0,
          createdAt: row.createdAt,
        },
      );
      await setDomains(tx, row.id, row.domainIds);
    });
    return (await this.findById(row.id))!;
  }

  async findById(id: string): Promise<ChannelRecord | undefined> {
    const raw = await this.db.get<RawChannel>(`SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id = $id`, { id });
    return raw === undefined ? undefined : this.decode(raw);
  }

  /** Every channel, newest first. */
  async all(): Promise<ChannelRecord[]> {
    const rows = await this.db.all<RawChannel>(`SELECT ${CHANNEL_COLUMNS} FROM channels ORDER BY created_at DESC, id DESC`);
    const channels: ChannelRecord[] = [];
    for (const raw of rows) channels.push(await this.decode(raw));
    return channels;
  }

  /** Deletes a channel with its deliveries (pending ones are dropped); false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    return (await this.db.all<{ id: string }>("DELETE FROM channels WHERE id = $id RETURNING id", { id })).length > 0;
  }

  /** Changes a channel's name, when it is told, and/or which domains it is for (null: every domain). */
  async update(id: string, changes: { name?: string; notifyWhen?: NotifyWhen; domainIds?: string[] | null }): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (changes.name !== undefined) await tx.run("UPDATE channels SET name = $name WHERE id = $id", { id, name: changes.name });
      if (changes.notifyWhen !== undefined) await tx.run("UPDATE channels SET notify_when = $when WHERE id = $id", { id, when: changes.notifyWhen });
      if (changes.domainIds !== undefined) {
        await tx.run("UPDATE channels SET all_domains = $all WHERE id = $id", { id, all: changes.domainIds === null ? 1 : 0 });
        await setDomains(tx, id, changes.domainIds);
      }
    });
  }

  /** The names of the given domains that exist, by id. */
  async domainNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.all<{ id: string; name: string }>(`SELECT id, name FROM domains WHERE ${this.db.dialect.textIn("id", "ids")}`, {
      ids: JSON.stringify(ids),
    });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  private async decode(raw: RawChannel): Promise<ChannelRecord> {
    const domainIds =
      raw.all_domains === 1
        ? []
        : (await this.db.all<{ domain_id: string }>("SELECT domain_id FROM channel_domains WHERE channel_id = $id ORDER BY domain_id", { id: raw.id })).map(
            (row) => row.domain_id,
          );
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

async function setDomains(tx: Db, id: string, domainIds: string[] | null): Promise<void> {
  await tx.run("DELETE FROM channel_domains WHERE channel_id = $id", { id });
  for (const domainId of domainIds ?? []) {
    await tx.run("INSERT INTO channel_domains (channel_id, domain_id) VALUES ($id, $domainId) ON CONFLICT DO NOTHING", { id, domainId });
  }
}

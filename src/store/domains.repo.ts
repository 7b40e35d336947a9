import type { CrawlOptions } from "../core/crawl-options.ts";
import { storedIgnoreRules, type IgnoreRules } from "../core/ignore-rules.ts";
import { withDefaultOptions } from "../core/stored-options.ts";
import type { VerifiedBy } from "../core/verified-by.ts";
import type { Db } from "./db.ts";

/**
 * Queries on domains; no rules here (services/domains.service.ts holds them). SQL over the store's Db
 * (store/db.ts), the same on both stores; on SQLite each statement is cached, so a request pays for executing it only.
 */

/** A stored domain; services/domain-view.ts turns it into the resource. */
export interface DomainRecord {
  id: string;
  /** Host with optional port, lowercase (IDN as punycode). */
  name: string;
  root_url: string;
  verification_token: string;
  verified_at: string | null;
  verified_by: VerifiedBy | null;
  /** Cron expression for recurring crawls, or null. */
  schedule: string | null;
  /** IANA time zone the schedule is read in; null: the server's local time. */
  schedule_timezone: string | null;
  default_options: CrawlOptions | null;
  /** URL patterns its crawls do not check or do not count as broken; empty lists when none. */
  ignore_rules: IgnoreRules;
  created_at: string;
  updated_at: string | null;
}

/** What an update may change; a field left out keeps its value, `null` clears it. */
export type DomainChanges = Partial<
  Pick<DomainRecord, "root_url" | "verified_at" | "verified_by" | "schedule" | "schedule_timezone" | "default_options" | "updated_at">
> & { ignore_rules?: IgnoreRules | null };

const UPDATABLE = ["root_url", "verified_at", "verified_by", "schedule", "schedule_timezone", "default_options", "ignore_rules", "updated_at"] as const;

const DOMAIN_COLUMNS =
  "id, name, root_url, verification_token, verified_at, verified_by, schedule, schedule_timezone, default_options, ignore_rules, created_at, updated_at";

type RawDomain = Omit<DomainRecord, "default_options" | "ignore_rules"> & { default_options: string | null; ignore_rules: string | null };

function toDomain(raw: RawDomain | undefined): DomainRecord | undefined {
  if (raw === undefined) return undefined;
  return {
    ...raw,
    default_options: raw.default_options === null ? null : withDefaultOptions(JSON.parse(raw.default_options) as Partial<CrawlOptions>),
    ignore_rules: storedIgnoreRules(raw.ignore_rules === null ? null : (JSON.parse(raw.ignore_rules) as Partial<IgnoreRules>)),
  };
}

export class DomainsRepo {
  constructor(private readonly db: Db) {}

  /** Inserts the domain, or returns undefined when its name is already registered. */
  async insertUnlessNameTaken(
    row: Pick<DomainRecord, "id" | "name" | "root_url" | "verification_token" | "verified_at" | "verified_by" | "created_at">,
  ): Promise<DomainRecord | undefined> {
    return toDomain(
      await this.db.get<RawDomain>(
        `INSERT INTO domains (id, name, root_url, verification_token, verified_at, verified_by, created_at)
         VALUES ($id, $name, $root_url, $verification_token, $verified_at, $verified_by, $created_at)
         ON CONFLICT (name) DO NOTHING RETURNING ${DOMAIN_COLUMNS}`,
        row,
      ),
    );
  }

  async findById(id: string): Promise<DomainRecord | undefined> {
    return toDomain(await this.db.get<RawDomain>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = $id`, { id }));
  }

  async findByName(name: string): Promise<DomainRecord | undefined> {
    return toDomain(await this.db.get<RawDomain>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE name = $name`, { name }));
  }

  /** One page, newest first; UUIDv7 ids break created_at ties in creation order. */
  async page(offset: number, limit: number): Promise<DomainRecord[]> {
    const rows = await this.db.all<RawDomain>(`SELECT ${DOMAIN_COLUMNS} FROM domains ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`, {
      offset,
      limit,
    });
    return rows.map((raw) => toDomain(raw)!);
  }

  /** Domains with a recurring-crawl schedule. */
  async scheduled(): Promise<DomainRecord[]> {
    return (await this.db.all<RawDomain>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE schedule IS NOT NULL`)).map((raw) => toDomain(raw)!);
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM domains"))!.n;
  }

  /** Applies `changes`; undefined when the domain does not exist. */
  async update(id: string, changes: DomainChanges): Promise<DomainRecord | undefined> {
    const columns = UPDATABLE.filter((column) => changes[column] !== undefined);
    if (columns.length === 0) return this.findById(id);
    const params: Record<string, string | null> = { id };
    for (const column of columns) {
      const value = changes[column]!;
      params[column] = typeof value === "object" && value !== null ? JSON.stringify(value) : value;
    }
    // One statement per distinct set of columns, each cached.
    const set = columns.map((column) => `${column} = $${column}`).join(", ");
    return toDomain(await this.db.get<RawDomain>(`UPDATE domains SET ${set} WHERE id = $id RETURNING ${DOMAIN_COLUMNS}`, params));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM domains WHERE id = $id", { id })).changes > 0;
  }
}

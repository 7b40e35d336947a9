import type { Database } from "bun:sqlite";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { storedIgnoreRules, type IgnoreRules } from "../core/ignore-rules.ts";
import { withDefaultOptions } from "../core/stored-options.ts";
import type { VerifiedBy } from "../core/verified-by.ts";

/**
 * Queries on domains; no rules here (services/domains.service.ts holds them). SQL over bun:sqlite like every
 * repo; `query()` caches each statement, so a request pays for executing SQL, not for compiling it.
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

function toDomain(raw: RawDomain | null): DomainRecord | undefined {
  if (raw === null) return undefined;
  return {
    ...raw,
    default_options: raw.default_options === null ? null : withDefaultOptions(JSON.parse(raw.default_options) as Partial<CrawlOptions>),
    ignore_rules: storedIgnoreRules(raw.ignore_rules === null ? null : (JSON.parse(raw.ignore_rules) as Partial<IgnoreRules>)),
  };
}

export class DomainsRepo {
  constructor(private readonly sqlite: Database) {}

  /** Inserts the domain, or returns undefined when its name is already registered. */
  insertUnlessNameTaken(
    row: Pick<DomainRecord, "id" | "name" | "root_url" | "verification_token" | "verified_at" | "verified_by" | "created_at">,
  ): DomainRecord | undefined {
    return toDomain(
      this.sqlite
        .query<RawDomain, Record<string, string | null>>(
          `INSERT INTO domains (id, name, root_url, verification_token, verified_at, verified_by, created_at)
           VALUES ($id, $name, $root_url, $verification_token, $verified_at, $verified_by, $created_at)
           ON CONFLICT (name) DO NOTHING RETURNING ${DOMAIN_COLUMNS}`,
        )
        .get(row),
    );
  }

  findById(id: string): DomainRecord | undefined {
    return toDomain(this.sqlite.query<RawDomain, { id: string }>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = $id`).get({ id }));
  }

  findByName(name: string): DomainRecord | undefined {
    return toDomain(this.sqlite.query<RawDomain, { name: string }>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE name = $name`).get({ name }));
  }

  /** One page, newest first; UUIDv7 ids break created_at ties in creation order. */
  page(offset: number, limit: number): DomainRecord[] {
    return this.sqlite
      .query<RawDomain, { offset: number; limit: number }>(
        `SELECT ${DOMAIN_COLUMNS} FROM domains ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
      )
      .all({ offset, limit })
      .map((raw) => toDomain(raw)!);
  }

  /** Domains with a recurring-crawl schedule. */
  scheduled(): DomainRecord[] {
    return this.sqlite
      .query<RawDomain, []>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE schedule IS NOT NULL`)
      .all()
      .map((raw) => toDomain(raw)!);
  }

  count(): number {
    return this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM domains").get()!.n;
  }

  /** Applies `changes`; undefined when the domain does not exist. */
  update(id: string, changes: DomainChanges): DomainRecord | undefined {
    const columns = UPDATABLE.filter((column) => changes[column] !== undefined);
    if (columns.length === 0) return this.findById(id);
    const params: Record<string, string | null> = { id };
    for (const column of columns) {
      const value = changes[column]!;
      params[column] = typeof value === "object" && value !== null ? JSON.stringify(value) : value;
    }
    // One statement per distinct set of columns, each cached by query().
    const set = columns.map((column) => `${column} = $${column}`).join(", ");
    return toDomain(
      this.sqlite.query<RawDomain, Record<string, string | null>>(`UPDATE domains SET ${set} WHERE id = $id RETURNING ${DOMAIN_COLUMNS}`).get(params),
    );
  }

  delete(id: string): boolean {
    return this.sqlite.query("DELETE FROM domains WHERE id = $id").run({ id }).changes > 0;
  }
}

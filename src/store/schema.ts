import { sql } from "drizzle-orm";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { VerifiedBy } from "../core/verified-by.ts";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The drizzle schema: the one source of the tables. `npm run db:generate` turns a change here into a new
 * numbered migration under store/migrations; shipped migrations are never edited.
 * Times are ISO 8601 UTC text; JSON columns hold small documents (scopes, options).
 */

const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** First characters of the key after `lp_`, shown in listings so an operator can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
    hash: text("hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: createdAt(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_unique").on(t.hash)],
);

export const domains = sqliteTable(
  "domains",
  {
    id: text("id").primaryKey(),
    /** Host with optional port, lowercase (IDN as punycode). */
    name: text("name").notNull(),
    rootUrl: text("root_url").notNull(),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: text("verified_at"),
    verifiedBy: text("verified_by").$type<VerifiedBy>(),
    /** Cron expression for recurring crawls, or null. */
    schedule: text("schedule"),
    defaultOptions: text("default_options", { mode: "json" }).$type<CrawlOptions>(),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
  },
  (t) => [uniqueIndex("domains_name_unique").on(t.name), index("domains_created_at_idx").on(t.createdAt)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type DomainRow = typeof domains.$inferSelect;

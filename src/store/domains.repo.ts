import { count, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "./db.ts";
import { domains, type DomainRow } from "./schema.ts";

/**
 * Queries on domains; no rules here (services/domains.service.ts holds them). Reads served by the API
 * are prepared once, so a request pays for executing SQL, not for building and compiling it.
 */
export class DomainsRepo {
  private readonly byId;
  private readonly byName;
  private readonly newestFirst;
  private readonly total;

  constructor(private readonly db: Db) {
    this.byId = db.select().from(domains).where(eq(domains.id, sql.placeholder("id"))).prepare();
    this.byName = db.select().from(domains).where(eq(domains.name, sql.placeholder("name"))).prepare();
    // UUIDv7 ids break created_at ties in creation order.
    this.newestFirst = db
      .select()
      .from(domains)
      .orderBy(desc(domains.createdAt), desc(domains.id))
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"))
      .prepare();
    this.total = db.select({ n: count() }).from(domains).prepare();
  }

  /** Inserts the domain, or returns undefined when its name is already registered. */
  insertUnlessNameTaken(row: typeof domains.$inferInsert): DomainRow | undefined {
    return this.db.insert(domains).values(row).onConflictDoNothing({ target: domains.name }).returning().get();
  }

  findById(id: string): DomainRow | undefined {
    return this.byId.get({ id });
  }

  findByName(name: string): DomainRow | undefined {
    return this.byName.get({ name });
  }

  /** One page, newest first. */
  page(offset: number, limit: number): DomainRow[] {
    return this.newestFirst.all({ offset, limit });
  }

  /** Domains with a recurring-crawl schedule. */
  scheduled(): DomainRow[] {
    return this.db.select().from(domains).where(isNotNull(domains.schedule)).all();
  }

  count(): number {
    return this.total.get()?.n ?? 0;
  }

  update(id: string, changes: Partial<typeof domains.$inferInsert>): DomainRow | undefined {
    return this.db.update(domains).set(changes).where(eq(domains.id, id)).returning().get();
  }

  delete(id: string): boolean {
    return this.db.delete(domains).where(eq(domains.id, id)).returning({ id: domains.id }).all().length > 0;
  }
}

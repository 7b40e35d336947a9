import { count, desc, eq } from "drizzle-orm";
import type { Db } from "./db.ts";
import { domains, type DomainRow } from "./schema.ts";

/** Queries on domains; no rules here (services/domains.service.ts holds them). */
export class DomainsRepo {
  constructor(private readonly db: Db) {}

  /** Inserts the domain, or returns undefined when its name is already registered. */
  insertUnlessNameTaken(row: typeof domains.$inferInsert): DomainRow | undefined {
    return this.db.insert(domains).values(row).onConflictDoNothing({ target: domains.name }).returning().get();
  }

  findById(id: string): DomainRow | undefined {
    return this.db.select().from(domains).where(eq(domains.id, id)).get();
  }

  findByName(name: string): DomainRow | undefined {
    return this.db.select().from(domains).where(eq(domains.name, name)).get();
  }

  /** One page, newest first; ids are UUIDv7 so they break ties in creation order. */
  page(offset: number, limit: number): DomainRow[] {
    return this.db.select().from(domains).orderBy(desc(domains.createdAt), desc(domains.id)).limit(limit).offset(offset).all();
  }

  count(): number {
    return this.db.select({ n: count() }).from(domains).get()?.n ?? 0;
  }

  update(id: string, changes: Partial<typeof domains.$inferInsert>): DomainRow | undefined {
    return this.db.update(domains).set(changes).where(eq(domains.id, id)).returning().get();
  }

  delete(id: string): boolean {
    return this.db.delete(domains).where(eq(domains.id, id)).returning({ id: domains.id }).all().length > 0;
  }
}

import { count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "./db.ts";
import { apiKeys, type ApiKeyRow } from "./schema.ts";

/**
 * Queries on API keys; no rules here (services/keys.service.ts holds them). The lookup run on every
 * authenticated request is prepared once: building and compiling it per call cost more than the request.
 */
export class KeysRepo {
  private readonly byHash;
  private readonly byId;

  constructor(private readonly db: Db) {
    this.byHash = db.select().from(apiKeys).where(eq(apiKeys.hash, sql.placeholder("hash"))).prepare();
    this.byId = db.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder("id"))).prepare();
  }

  insert(row: typeof apiKeys.$inferInsert): ApiKeyRow {
    return this.db.insert(apiKeys).values(row).returning().get();
  }

  findByHash(hash: string): ApiKeyRow | undefined {
    return this.byHash.get({ hash });
  }

  findById(id: string): ApiKeyRow | undefined {
    return this.byId.get({ id });
  }

  list(): ApiKeyRow[] {
    return this.db.select().from(apiKeys).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).all();
  }

  count(): number {
    return this.db.select({ n: count() }).from(apiKeys).get()?.n ?? 0;
  }

  markRevoked(id: string, at: string): void {
    this.db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, id)).run();
  }

  touchLastUsed(id: string, at: string): void {
    this.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id)).run();
  }
}

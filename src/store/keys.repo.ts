import type { Db } from "./db.ts";

/**
 * Queries on API keys; no rules here (services/keys.service.ts holds them). SQL over the store's Db (store/db.ts),
 * the same on both stores; on SQLite each statement is cached, so a lookup pays for execution only.
 */

/** A stored key: never the secret, only its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** First characters of the key after `lp_`, shown in listings. */
  prefix: string;
  /** Lowercase hex SHA-256 of the whole key. */
  hash: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const KEY_COLUMNS = "id, name, prefix, hash, scopes, created_at, last_used_at, revoked_at";

type RawKey = Omit<ApiKeyRecord, "scopes"> & { scopes: string };

function toKey(raw: RawKey | undefined): ApiKeyRecord | undefined {
  if (raw === undefined) return undefined;
  return { ...raw, scopes: JSON.parse(raw.scopes) as string[] };
}

export class KeysRepo {
  constructor(private readonly db: Db) {}

  async insert(row: Omit<ApiKeyRecord, "last_used_at" | "revoked_at">): Promise<ApiKeyRecord> {
    const raw = await this.db.get<RawKey>(
      `INSERT INTO api_keys (id, name, prefix, hash, scopes, created_at) VALUES ($id, $name, $prefix, $hash, $scopes, $created_at)
       RETURNING ${KEY_COLUMNS}`,
      { ...row, scopes: JSON.stringify(row.scopes) },
    );
    return toKey(raw)!;
  }

  /**
   * Inserts the store's first key, or nothing when another process made it meanwhile (undefined): the first to
   * record the marker row makes it; a second waits on that row's commit, then finds it taken.
   */
  async insertFirst(row: Omit<ApiKeyRecord, "last_used_at" | "revoked_at">): Promise<ApiKeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const marked = await tx.get("INSERT INTO store_secrets (name, value) VALUES ('bootstrap_key', $id) ON CONFLICT DO NOTHING RETURNING name", {
        id: row.id,
      });
      if (marked === undefined) return undefined;
      if (((await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys"))?.n ?? 0) > 0) return undefined;
      return new KeysRepo(tx).insert(row);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return toKey(await this.db.get<RawKey>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $hash`, { hash }));
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return toKey(await this.db.get<RawKey>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $id`, { id }));
  }

  /** Newest first; UUIDv7 ids break created_at ties in creation order. */
  async list(): Promise<ApiKeyRecord[]> {
    return (await this.db.all<RawKey>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at DESC, id DESC`)).map((raw) => toKey(raw)!);
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM api_keys"))!.n;
  }

  async markRevoked(id: string, at: string): Promise<void> {
    await this.db.run("UPDATE api_keys SET revoked_at = $at WHERE id = $id", { id, at });
  }

  async touchLastUsed(id: string, at: string): Promise<void> {
    await this.db.run("UPDATE api_keys SET last_used_at = $at WHERE id = $id", { id, at });
  }
}

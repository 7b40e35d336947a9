import type { Database } from "bun:sqlite";

/**
 * Queries on API keys; no rules here (services/keys.service.ts holds them). SQL over bun:sqlite like every repo;
 * `query()` caches each statement, so the lookup run on every authenticated request pays for execution only.
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

function toKey(raw: RawKey | null): ApiKeyRecord | undefined {
  if (raw === null) return undefined;
  return { ...raw, scopes: JSON.parse(raw.scopes) as string[] };
}

export class KeysRepo {
  constructor(private readonly sqlite: Database) {}

  insert(row: Omit<ApiKeyRecord, "last_used_at" | "revoked_at">): ApiKeyRecord {
    return toKey(
      this.sqlite
        .query<RawKey, Record<string, string>>(
          `INSERT INTO api_keys (id, name, prefix, hash, scopes, created_at) VALUES ($id, $name, $prefix, $hash, $scopes, $created_at)
           RETURNING ${KEY_COLUMNS}`,
        )
        .get({ ...row, scopes: JSON.stringify(row.scopes) }),
    )!;
  }

  findByHash(hash: string): ApiKeyRecord | undefined {
    return toKey(this.sqlite.query<RawKey, { hash: string }>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $hash`).get({ hash }));
  }

  findById(id: string): ApiKeyRecord | undefined {
    return toKey(this.sqlite.query<RawKey, { id: string }>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $id`).get({ id }));
  }

  /** Newest first; UUIDv7 ids break created_at ties in creation order. */
  list(): ApiKeyRecord[] {
    return this.sqlite
      .query<RawKey, []>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at DESC, id DESC`)
      .all()
      .map((raw) => toKey(raw)!);
  }

  count(): number {
    return this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM api_keys").get()!.n;
  }

  markRevoked(id: string, at: string): void {
    this.sqlite.query("UPDATE api_keys SET revoked_at = $at WHERE id = $id").run({ id, at });
  }

  touchLastUsed(id: string, at: string): void {
    this.sqlite.query("UPDATE api_keys SET last_used_at = $at WHERE id = $id").run({ id, at });
  }
}

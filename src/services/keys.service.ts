import { monotonicNow } from "../core/clock.ts";
import { NotFoundError, UnauthorizedError, InvalidRequestError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import { isScope, SCOPES, type Scope } from "../core/scopes.ts";
import type { ApiKeyRecord, KeysRepo } from "../store/keys.repo.ts";
import { digestsEqual, displayPrefix, generateKeySecret, hashKeySecret, KEY_PATTERN } from "./api-key-secret.ts";

/** What a caller is allowed to see of a key (never the secret nor its hash). */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The identity behind an authenticated request. */
export interface Principal {
  keyId: string;
  name: string;
  scopes: Scope[];
}

/** Writes `last_used_at` at most this often per key, so authentication does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Principals remembered at once (valid keys only: a flood of made-up keys cannot grow the table). */
const MAX_REMEMBERED_PRINCIPALS = 1_000;

/**
 * API keys: issue, list, revoke, authenticate, and the first-start bootstrap key. With the store's version
 * token (store/store-version.ts), a key's principal is remembered (by the key's hash) until anything is
 * committed to the store, so a revocation (by the API or by `linkpatrol keys revoke` beside the service)
 * takes effect with the very next request, and the requests in between skip the lookup: a store read on every
 * request costs the API throughput under load (bench/README.md, "One cache for a GET").
 */
export class KeysService {
  private readonly lastTouched = new Map<string, number>();
  private readonly principals = new Map<string, { version: string; principal: Principal }>();
  /** Lookups under way, by key hash, each under the version its caller read: callers under that version share it. */
  private readonly lookups = new Map<string, { version: string; row: Promise<ApiKeyRecord | undefined> }>();

  constructor(
    private readonly repo: KeysRepo,
    private readonly storeVersion?: () => string | Promise<string>,
  ) {}

  /** Creates a key and returns it with its secret, which is never retrievable again. */
  create(name: string, scopes: readonly string[] = ["admin"]): Promise<{ key: ApiKeyView; secret: string }> {
    return this.insertKey(name, scopes, generateKeySecret());
  }

  /**
   * On an empty store, creates the admin key: from `configured` when given (so automation knows it),
   * else a random one returned for printing once. Returns null when keys already exist.
   */
  async bootstrap(configured: string | null): Promise<{ key: ApiKeyView; secret: string; generated: boolean } | null> {
    if ((await this.repo.count()) > 0) return null;
    const secret = configured ?? generateKeySecret();
    // Nodes starting at once on an empty store (a cluster): one makes the key, the others find it made.
    const row = await this.repo.insertFirst({
      id: newId(),
      name: "bootstrap",
      prefix: displayPrefix(secret),
      hash: hashKeySecret(secret),
      scopes: ["admin"],
      created_at: new Date().toISOString(),
    });
    return row === undefined ? null : { key: toView(row), secret, generated: configured === null };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.repo.list()).map(toView);
  }

  /** One key (never its secret); NotFoundError for an unknown or malformed id. */
  async get(id: string): Promise<ApiKeyView> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.repo.findById(key);
    if (!row) throw new NotFoundError("api key", id);
    return toView(row);
  }

  /** Revokes a key; revoking twice is harmless. */
  async revoke(id: string): Promise<ApiKeyView> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.repo.findById(key);
    if (!row) throw new NotFoundError("api key", id);
    if (!row.revoked_at) await this.repo.markRevoked(row.id, new Date().toISOString());
    return toView((await this.repo.findById(row.id))!);
  }

  /**
   * Resolves a bearer secret to its principal; throws UnauthorizedError for anything unusable. `token`: the store's
   * version as the request began (the API reads it once per request); null: none could be read; absent: read here.
   */
  async authenticate(secret: string, token?: string | null): Promise<Principal> {
    if (!KEY_PATTERN.test(secret)) throw new UnauthorizedError("invalid API key");
    const hash = hashKeySecret(secret);
    const version = token === undefined ? await this.storeVersion?.() : (token ?? undefined);
    const remembered = this.principals.get(hash);
    if (remembered !== undefined && remembered.version === version) {
      if (this.useDue(remembered.principal.keyId)) await this.repo.touchLastUsed(remembered.principal.keyId, new Date().toISOString());
      return remembered.principal;
    }
    const row = await this.lookUp(hash, version);
    if (!row || !digestsEqual(row.hash, hash)) throw new UnauthorizedError("invalid API key");
    if (row.revoked_at) throw new UnauthorizedError("API key revoked");
    const principal = { keyId: row.id, name: row.name, scopes: row.scopes.filter(isScope) };
    if (version !== undefined) {
      if (this.principals.size >= MAX_REMEMBERED_PRINCIPALS) this.principals.clear();
      this.principals.set(hash, { version, principal });
    }
    await this.noteUse(row.id);
    return principal;
  }

  /**
   * The key's row; callers that hold the same version token share one lookup. Under load a commit left every
   * waiting request missing at once, and each read the key itself (on PostgreSQL ~870 lookups a second for one
   * key, bench/README.md). Equal tokens see the same rows, so a shared row is what each would have read.
   */
  private lookUp(hash: string, version: string | undefined): Promise<ApiKeyRecord | undefined> {
    if (version === undefined) return this.repo.findByHash(hash);
    const under = this.lookups.get(hash);
    if (under !== undefined && under.version === version) return under.row;
    const lookup = { version, row: this.repo.findByHash(hash) };
    this.lookups.set(hash, lookup);
    const done = () => {
      if (this.lookups.get(hash) === lookup) this.lookups.delete(hash);
    };
    lookup.row.then(done, done);
    return lookup.row;
  }

  /**
   * The principal of a key known by id (a dashboard session names its key, never its secret); throws
   * UnauthorizedError once the key is revoked or gone, so a session ends with its key.
   */
  async principalOf(keyId: string): Promise<Principal> {
    const id = canonicalId(keyId);
    const row = id === null ? undefined : await this.repo.findById(id);
    if (!row) throw new UnauthorizedError("API key no longer exists");
    if (row.revoked_at) throw new UnauthorizedError("API key revoked");
    await this.noteUse(row.id);
    return { keyId: row.id, name: row.name, scopes: row.scopes.filter(isScope) };
  }

  private async insertKey(name: string, scopes: readonly string[], secret: string): Promise<{ key: ApiKeyView; secret: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 100) {
      throw new InvalidRequestError("invalid key name", [{ field: "name", message: "must be 1 to 100 characters" }]);
    }
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0 || scopes.length === 0) {
      const problem = scopes.length === 0 ? "no scope given" : `unknown scope${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`;
      throw new InvalidRequestError("invalid scopes", [{ field: "scopes", message: `${problem}; valid scopes: ${SCOPES.join(", ")}` }]);
    }
    const row = await this.repo.insert({
      id: newId(),
      name: trimmed,
      prefix: displayPrefix(secret),
      hash: hashKeySecret(secret),
      scopes: [...new Set(scopes)],
      created_at: new Date().toISOString(),
    });
    return { key: toView(row), secret };
  }

  /** Records a use at most once a minute per key (measured on the monotonic clock; the stored time is the wall's). */
  private async noteUse(id: string): Promise<void> {
    if (this.useDue(id)) await this.repo.touchLastUsed(id, new Date().toISOString());
  }

  /** Whether a use of `id` is to be written now; checked before any await, so a request that writes nothing awaits nothing. */
  private useDue(id: string): boolean {
    const now = monotonicNow();
    const last = this.lastTouched.get(id);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return false;
    this.lastTouched.set(id, now);
    return true;
  }
}

function toView(row: ApiKeyRecord): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes.filter(isScope),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

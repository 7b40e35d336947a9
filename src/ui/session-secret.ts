import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * The session signing key. On the appliance's SQLite store: a 0600 file beside the store, so a copied database
 * alone cannot forge sessions and a restart signs no one out; deleting it ends every session. On a PostgreSQL
 * store (several nodes): a row of the store's shared secrets, so a sign-in on one node holds on every other; the
 * database then holds the key, and its backups with it (docs/decisions.md, "The session key in the database").
 */

/** Bytes of a new key; a stored key shorter than this is not used. */
const KEY_BYTES = 32;

/** The session key's name among the store's shared secrets (store_secrets). */
export const SESSION_SECRET_NAME = "session_key";

/** Reads (or creates) the session key for the SQLite store at `storePath`. */
export function loadSessionSecret(storePath: string): Uint8Array {
  if (storePath === ":memory:" || storePath.startsWith("file::memory:")) return randomBytes(KEY_BYTES);
  const path = `${storePath}.session-key`;
  if (existsSync(path)) {
    const text = readFileSync(path, "utf8").trim();
    const bytes = Buffer.from(text, "base64url");
    if (bytes.length >= KEY_BYTES) return bytes;
  }
  const secret = randomBytes(KEY_BYTES);
  // "wx" would refuse a file another process wrote meanwhile; only one `serve` runs per store, so overwrite.
  writeFileSync(path, `${secret.toString("base64url")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return secret;
}

/** Where shared secrets are kept: store/secrets.repo.ts's SecretsRepo. */
export interface SharedSecrets {
  getOrCreate(name: string, make: () => string): Promise<string>;
}

/**
 * Reads (or creates) the session key every node of a PostgreSQL store signs with. Nodes starting at once each
 * offer a key; one is stored and all of them use it.
 */
export async function loadSharedSessionSecret(secrets: SharedSecrets): Promise<Uint8Array> {
  const text = await secrets.getOrCreate(SESSION_SECRET_NAME, () => randomBytes(KEY_BYTES).toString("base64url"));
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length < KEY_BYTES)
    throw new Error(`the store's session key (store_secrets '${SESSION_SECRET_NAME}') is shorter than ${KEY_BYTES} bytes; delete that row to make a new one`);
  return bytes;
}

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * The key that signs dashboard sessions: 32 random bytes in a file beside the store (`<store>.session-key`,
 * mode 0600), made on first use. Beside rather than inside the store, so a copied or backed-up database alone
 * cannot forge sessions; kept across restarts, so a restart does not sign everyone out. Deleting the file ends
 * every session. An in-memory store gets a key of its own for the life of the process.
 */

/** Reads (or creates) the session key for the store at `storePath`. */
export function loadSessionSecret(storePath: string): Uint8Array {
  if (storePath === ":memory:" || storePath.startsWith("file::memory:")) return randomBytes(32);
  const path = `${storePath}.session-key`;
  if (existsSync(path)) {
    const text = readFileSync(path, "utf8").trim();
    const bytes = Buffer.from(text, "base64url");
    if (bytes.length >= 32) return bytes;
  }
  const secret = randomBytes(32);
  // "wx" would refuse a file another process wrote meanwhile; only one `serve` runs per store, so overwrite.
  writeFileSync(path, `${secret.toString("base64url")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return secret;
}

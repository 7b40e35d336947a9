import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * The session signing key: a 0600 file beside the store, so a copied database alone cannot forge sessions and a
 * restart signs no one out. Deleting it ends every session.
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

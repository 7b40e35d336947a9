/**
 * Secrets never reach the delivery log or the service's log: an error or an answer that quotes one (a server
 * echoing the URL it was called at, a library naming the credentials it used) has each secret value replaced.
 */

const REDACTED = "[redacted]";

/** `text` with every occurrence of each of `secrets` (and of its URL-encoded form) replaced by [redacted]. */
export function redactSecrets(text: string, secrets: readonly unknown[]): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join(REDACTED);
    // A URL's path after its host often is the token itself (Slack, Discord, Teams).
    try {
      const url = new URL(secret);
      if (url.pathname.length > 8) out = out.split(url.pathname).join(REDACTED);
    } catch {
      // not a URL
    }
  }
  return out;
}

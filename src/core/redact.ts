/**
 * Passwords in URLs never reach the store, an answer, a report or a log (docs/decisions.md, "Passwords in URLs are
 * redacted where they enter"); requests never send user info, so the check loses nothing.
 */

/** What stands for a password in every URL we keep. */
const REDACTED_PASSWORD = "***";

/** Replaces `url`'s password, if it has one, in place; the user name stays, to tell links apart. Returns `url`. */
export function redactPassword(url: URL): URL {
  if (url.password !== "") url.password = REDACTED_PASSWORD;
  return url;
}

/**
 * Passwords in URLs (`https://user:secret@host/`) never reach the store, an API answer, a report or a log:
 * every URL the crawler records or follows has its password replaced here. Nothing is lost for the check:
 * requests never send a URL's user info (pinned-request.ts names the address and the path only).
 */

/** What stands for a password in every URL we keep. */
const REDACTED_PASSWORD = "***";

/** Replaces `url`'s password, if it has one, in place; the user name stays, to tell links apart. Returns `url`. */
export function redactPassword(url: URL): URL {
  if (url.password !== "") url.password = REDACTED_PASSWORD;
  return url;
}

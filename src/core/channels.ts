/**
 * Notification channels as closed sets: where a digest goes (one destination per kind, each with its own
 * formatter in notifications/destinations/) and when a channel wants one. Stored in columns, so they live here
 * like the crawl statuses.
 */

/** The destinations a channel can send to. */
export const CHANNEL_KINDS = ["email", "slack", "discord", "teams", "matrix", "ntfy", "gotify"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/**
 * When a channel is told about an ended crawl. A cancelled crawl is sent with `always`, and with `changed` only
 * when links broke or were fixed in it (the next crawl compares with it, so its changes are told once).
 */
export const NOTIFY_WHEN = ["changed", "always", "failure"] as const;
export type NotifyWhen = (typeof NOTIFY_WHEN)[number];

/** The event names of what a channel is sent, as the delivery log shows them. */
export const DIGEST_EVENT = "notification.digest";
export const CHANNEL_TEST_EVENT = "notification.test";

import { z } from "zod";
import { CHANNEL_KINDS, NOTIFY_WHEN } from "../core/channels.ts";
import { DESTINATIONS } from "../notifications/destinations/index.ts";
import type { ChannelRecord } from "../store/channels.repo.ts";

/**
 * Notification channels as clients see them (docs/api.md "Notification channels"): the settings that may be
 * shown, the names of the secrets that are set (never their values: not in any answer, not even the creation
 * one, since the client just sent them), and where it sends in words that reveal no secret.
 */

export const ChannelKindSchema = z.enum(CHANNEL_KINDS).meta({ id: "ChannelKind" });
export const NotifyWhenSchema = z.enum(NOTIFY_WHEN).meta({
  id: "NotifyWhen",
  description: "changed (default): when links broke or were fixed, or the previous crawl had failed; always; failure: failed crawls only",
});

export const ChannelSchema = z
  .object({
    id: z.uuid(),
    kind: ChannelKindSchema,
    name: z.string(),
    /** Where it sends, without secrets: "hooks.slack.com/…", "smtp.example.com:587 → ops@example.com". */
    target: z.string(),
    /** The configuration fields that are not secret. */
    settings: z.record(z.string(), z.unknown()),
    /** Which secret fields are set; their values are never returned. */
    secrets_set: z.array(z.string()),
    notify_when: NotifyWhenSchema,
    /** null: every domain (those added later too); else the domains it is for. */
    domains: z.array(z.object({ id: z.uuid(), name: z.string() })).nullable(),
    active: z.boolean(),
    /** Why an inactive channel was switched off (410 Gone, failing too long, by hand); null while active. */
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Channel" });

export const ChannelTestResultSchema = z
  .object({
    delivered: z.boolean(),
    /** The HTTP status of a chat destination's answer; null for email and when no answer came. */
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    /** The server's answer: the SMTP server's last reply for email, the first KiB of the body for chat. */
    response: z.string(),
  })
  .meta({ id: "ChannelTestResult" });

export type ChannelView = z.output<typeof ChannelSchema>;
export type ChannelTestResultView = z.output<typeof ChannelTestResultSchema>;

/** A channel as clients see it; `domainNames` resolves its domain ids (a deleted domain has left the list already). */
export function toChannelView(row: ChannelRecord, domainNames: Map<string, string>): ChannelView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    target: DESTINATIONS[row.kind].describe(row),
    settings: row.settings,
    secrets_set: Object.keys(row.secrets)
      .filter((key) => row.secrets[key] !== undefined)
      .sort(),
    notify_when: row.notify_when,
    domains: row.all_domains ? null : row.domain_ids.map((id) => ({ id, name: domainNames.get(id) ?? id })),
    active: row.active,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
  };
}

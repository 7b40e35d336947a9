import { z } from "zod";
import type { ChannelKind } from "../core/channels.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { requestOnce, type AttemptOutcome, type OutgoingRequest } from "../webhooks/attempt.ts";
import type { Message } from "./message.ts";

/**
 * The one interface every destination implements (after Apprise and Uptime Kuma): its fields and secrets, the
 * URLs the SSRF rules check, how it is shown, and how one message is sent.
 */

/** A channel's stored configuration. */
export interface ChannelConfig {
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** What sending needs besides the message and the channel. */
export interface SendContext {
  /** The delivery's id, stable across attempts (Matrix's transaction id: a retry is not posted twice). */
  deliveryId: string;
  /** Chat URLs: public addresses only unless allowed. */
  policy: AddressPolicy;
  resolve?: Resolve;
  timeoutMs: number;
  /** Extra trusted CA certificates (notifications.ca_file) with the system roots, PEM. */
  ca?: string[];
  signal?: AbortSignal;
}

export interface Destination {
  kind: ChannelKind;
  /** The configuration fields a channel of this kind is created with (validated by the API). */
  config: z.ZodObject;
  /** Which of those fields are stored as secrets: never shown, never logged. */
  secretFields: readonly string[];
  /** The URLs of a configuration that the chat URL rules (scheme, private addresses) apply to. */
  urls(config: Record<string, unknown>): string[];
  /** Where the channel sends, in words that reveal no secret (e.g. "hooks.slack.com", "smtp.example.com:587 → 2 addresses"). */
  describe(channel: ChannelConfig): string;
  /** One attempt to send `message`; never rejects for network or server outcomes. */
  send(message: Message, channel: ChannelConfig, context: SendContext): Promise<AttemptOutcome>;
}

/** Appended to "private or reserved address" errors of chat URLs. */
const CHANNEL_POLICY_HINT = "allow it with notifications.allow_private_targets";

/** A destination reached over HTTP: `render` builds the request, the webhooks' attempt sends it. */
export function chatDestination(
  spec: Omit<Destination, "send"> & { render(message: Message, channel: ChannelConfig, deliveryId: string): OutgoingRequest },
): Destination & {
  render(message: Message, channel: ChannelConfig, deliveryId: string): OutgoingRequest;
} {
  return {
    ...spec,
    send: (message, channel, context) =>
      requestOnce(spec.render(message, channel, context.deliveryId), {
        policy: context.policy,
        resolve: context.resolve,
        timeoutMs: context.timeoutMs,
        ca: context.ca,
        policyHint: CHANNEL_POLICY_HINT,
        signal: context.signal,
      }),
  };
}

/** A destination that posts JSON to one webhook URL, its own secret (Discord, Slack, Teams); `what` describes the URL. */
export function webhookUrlDestination(kind: ChannelKind, what: string, body: (message: Message) => object) {
  return chatDestination({
    kind,
    config: z.strictObject({ url: z.url().max(2048).describe(`${what} (kept secret)`) }),
    secretFields: ["url"],
    urls: (config) => [String(config.url)],
    describe: (channel) => originOnly(channel.secrets.url),
    render: (message, channel) => ({ url: String(channel.secrets.url), method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body(message)) }),
  });
}

/** "https://hooks.slack.com/…": a URL's scheme and host, its path (which may hold a token) left out. */
export function originOnly(url: unknown): string {
  try {
    return `${new URL(String(url)).origin}/…`;
  } catch {
    return "(invalid URL)";
  }
}

/** JSON request headers. */
export const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

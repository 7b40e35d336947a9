import { z } from "zod";
import { chatDestination, JSON_HEADERS } from "../destination.ts";
import { markdownBody } from "../markdown-message.ts";
import type { Message, Tone } from "../message.ts";
import { clip, utf8Bytes } from "../plain-text.ts";

/**
 * ntfy: JSON published to the server's root, so title and link travel in fields, not headers (nothing to inject
 * into). The topic is kept secret; the body stays under 3,900 bytes (past 4,096 it becomes an attachment).
 */

const MESSAGE_BYTES = 3_900;
const TAGS: Record<Tone, string[]> = { failed: ["rotating_light"], broken: ["warning"], fixed: ["white_check_mark"], clean: ["white_check_mark"] };

export const ntfy = chatDestination({
  kind: "ntfy",
  config: z.strictObject({
    server_url: z.url().max(2048).default("https://ntfy.sh").describe("the ntfy server, default https://ntfy.sh"),
    topic: z
      .string()
      .regex(/^[-_A-Za-z0-9]{1,64}$/, "must be 1-64 letters, digits, - or _")
      .describe("the topic (kept secret)"),
    token: z.string().min(1).max(4096).optional().describe("an access token for a protected topic (kept secret)"),
  }),
  secretFields: ["topic", "token"],
  urls: (config) => [String(config.server_url ?? "https://ntfy.sh")],
  describe: (channel) => `a topic on ${String(channel.settings.server_url)}`,
  render(message: Message, channel) {
    const body = {
      topic: String(channel.secrets.topic),
      title: clip(message.title, 200),
      message: markdownBody(message, MESSAGE_BYTES, utf8Bytes),
      markdown: true,
      tags: TAGS[message.tone],
      priority: message.tone === "failed" || message.tone === "broken" ? 4 : 3,
      ...(message.link === null ? {} : { click: message.link }),
    };
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (typeof channel.secrets.token === "string") headers.authorization = `Bearer ${channel.secrets.token}`;
    return { url: String(channel.settings.server_url), method: "POST", headers, body: JSON.stringify(body) };
  },
});

import { z } from "zod";
import { chatDestination, JSON_HEADERS } from "../destination.ts";
import { markdownBody } from "../markdown-message.ts";
import type { Message } from "../message.ts";
import { clip } from "../plain-text.ts";

/**
 * Gotify: POST /message with the application token in the X-Gotify-Key header (kept secret), the body marked
 * as markdown for the clients and the crawl's page as the notification's click target. Gotify sets no size
 * limit of its own; 10,000 characters keeps a message readable on a phone.
 */

const MESSAGE_CHARS = 10_000;

export const gotify = chatDestination({
  kind: "gotify",
  config: z.strictObject({
    server_url: z.url().max(2048).describe("the Gotify server, e.g. https://gotify.example.com"),
    token: z.string().min(1).max(4096).describe("the application token (kept secret)"),
  }),
  secretFields: ["token"],
  urls: (config) => [String(config.server_url)],
  describe: (channel) => String(channel.settings.server_url),
  render(message: Message, channel) {
    const extras: Record<string, unknown> = { "client::display": { contentType: "text/markdown" } };
    if (message.link !== null) extras["client::notification"] = { click: { url: message.link } };
    const body = {
      title: clip(message.title, 200),
      message: markdownBody(message, MESSAGE_CHARS, (text) => text.length),
      priority: message.tone === "failed" || message.tone === "broken" ? 8 : 4,
      extras,
    };
    const url = `${String(channel.settings.server_url).replace(/\/+$/, "")}/message`;
    return { url, method: "POST", headers: { ...JSON_HEADERS, "x-gotify-key": String(channel.secrets.token) }, body: JSON.stringify(body) };
  },
});

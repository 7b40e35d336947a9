import { z } from "zod";
import { chatDestination, JSON_HEADERS } from "../destination.ts";
import { escapeHtml, linkable, matrixPlain } from "../escape.ts";
import { andMore, boundedItem, fitPieces } from "../fit.ts";
import type { Message, MessageItem } from "../message.ts";
import { utf8Bytes } from "../plain-text.ts";
import { plainItem } from "../plain-message.ts";

/**
 * Matrix: an `m.notice` PUT with the delivery id as transaction id, so a retry is not posted twice. `@` gets a word
 * joiner so crawled "@room" notifies no one; both bodies stay under 48,000 of the event's 65,536 bytes.
 */

const BODIES_BYTES = 48_000;

function htmlLink(url: string): string {
  const href = linkable(url);
  return href === null ? escapeHtml(url) : `<a href="${escapeHtml(href)}">${escapeHtml(url)}</a>`;
}

/** One target as [plain lines, HTML list item]: both are fitted together. */
function itemPair(item: MessageItem): [string, string] {
  const sources = item.sources.map((s) => `<li>from ${htmlLink(s.url)}${s.text === "" ? "" : ` “${escapeHtml(s.text)}”`}</li>`);
  if (item.moreSources > 0) sources.push(`<li>${andMore(item.moreSources, "more pages")}</li>`);
  const since = item.since === null ? "" : ` · ${escapeHtml(item.since)}`;
  const html = `<li>${htmlLink(item.url)} — ${escapeHtml(item.status)}${since}${sources.length > 0 ? `<ul>${sources.join("")}</ul>` : ""}</li>`;
  return [plainItem(item).map(matrixPlain).join("\n"), html];
}

const pairBytes = ([text, html]: [string, string]) => utf8Bytes(text) + utf8Bytes(html) + 2;

export const matrix = chatDestination({
  kind: "matrix",
  config: z.strictObject({
    homeserver: z.url().max(2048).describe("the homeserver's client API base, e.g. https://matrix.example.org"),
    room_id: z
      .string()
      .regex(/^![^\s:]+:\S+$/, "must be a room id such as !abcdef:example.org (not an alias)")
      .max(255),
    access_token: z.string().min(1).max(4096).describe("the bot user's access token (kept secret)"),
  }),
  secretFields: ["access_token"],
  urls: (config) => [String(config.homeserver)],
  describe: (channel) => `${String(channel.settings.room_id)} on ${String(channel.settings.homeserver)}`,
  render(message: Message, channel, deliveryId) {
    const text = [matrixPlain(message.title), matrixPlain(message.summary)];
    const html = [`<h4>${escapeHtml(message.title)}</h4>`, `<p>${escapeHtml(message.summary)}</p>`];
    if (message.failure !== null) {
      text.push(matrixPlain(message.failure));
      html.push(`<p><strong>${escapeHtml(message.failure)}</strong></p>`);
    }
    for (const warning of message.warnings.slice(0, 10)) {
      text.push(`! ${matrixPlain(warning)}`);
      html.push(`<p>⚠ ${escapeHtml(warning)}</p>`);
    }
    let left = BODIES_BYTES - utf8Bytes(text.join("\n")) - utf8Bytes(html.join("")) - 1_000;
    message.sections.forEach((section, index) => {
      const share = Math.floor(left / (message.sections.length - index));
      const items = section.items.map((item) => boundedItem(item, itemPair, pairBytes, share / 2)).filter((p): p is [string, string] => p !== null);
      const more = (n: number): [string, string] => [`- ${andMore(n, "more URLs")}`, `<li>${andMore(n, "more URLs")}</li>`];
      const kept = fitPieces(items, share, pairBytes, more, section.moreTargets + section.items.length - items.length);
      text.push(`${section.heading}:`, ...kept.map(([t]) => t));
      html.push(`<h5>${escapeHtml(section.heading)}</h5><ul>${kept.map(([, h]) => h).join("")}</ul>`);
      left -= kept.reduce((sum, pair) => sum + pairBytes(pair), 0);
    });
    if (message.link !== null) {
      text.push(`See the crawl: ${message.link}`);
      html.push(`<p><a href="${escapeHtml(message.link)}">Open the crawl in linkpatrol</a></p>`);
    }
    text.push(message.footer);
    html.push(`<p><sub>${escapeHtml(message.footer)}</sub></p>`);
    const content = { msgtype: "m.notice", body: text.join("\n"), format: "org.matrix.custom.html", formatted_body: html.join(""), "m.mentions": {} };
    const base = String(channel.settings.homeserver).replace(/\/+$/, "");
    const room = encodeURIComponent(String(channel.settings.room_id));
    return {
      url: `${base}/_matrix/client/v3/rooms/${room}/send/m.room.message/${encodeURIComponent(deliveryId)}`,
      method: "PUT",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${String(channel.secrets.access_token)}` },
      body: JSON.stringify(content),
    };
  },
});

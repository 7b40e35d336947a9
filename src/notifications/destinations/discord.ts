import { webhookUrlDestination } from "../destination.ts";
import { escapeMarkdown, markdownLink } from "../escape.ts";
import { andMore, boundedItem, fitPieces } from "../fit.ts";
import type { Message, MessageItem, Tone } from "../message.ts";
import { clip } from "../plain-text.ts";

/**
 * Discord through a channel webhook (the URL is its secret): title as `content`, one embed per part, within
 * Discord's limits. Texts are markdown-escaped and `allowed_mentions` empty, so crawled text pings no one.
 */

const EMBEDS_CHARS = 5_800;
const DESCRIPTION_CHARS = 4_000;
const LABEL_CHARS = 80;
const COLOURS: Record<Tone, number> = { failed: 0xd93f0b, broken: 0xe99695, fixed: 0x2da44e, clean: 0x2da44e };

function itemText(item: MessageItem): string {
  const since = item.since === null ? "" : ` · ${escapeMarkdown(item.since)}`;
  const lines = [`• ${markdownLink(item.url, clip(item.url, LABEL_CHARS))} — ${escapeMarkdown(item.status)}${since}`];
  for (const source of item.sources) {
    lines.push(`  from ${markdownLink(source.url, clip(source.url, LABEL_CHARS))}${source.text === "" ? "" : ` “${escapeMarkdown(source.text)}”`}`);
  }
  if (item.moreSources > 0) lines.push(`  ${andMore(item.moreSources, "more pages")}`);
  return lines.join("\n");
}

/** Characters Discord counts for an embed: title, description and footer. */
function embedChars(embed: { title?: string; description?: string; footer?: { text: string } }): number {
  return (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + (embed.footer?.text.length ?? 0);
}

export const discord = webhookUrlDestination("discord", "the channel webhook URL", (message: Message) => {
  const introLines = [escapeMarkdown(message.summary)];
  if (message.failure !== null) introLines.push(`**${escapeMarkdown(message.failure)}**`);
  const warnings = fitPieces(
    message.warnings.map((w) => `⚠ ${escapeMarkdown(w)}`),
    1_200,
    (t) => t.length + 1,
    (n) => andMore(n, "more warnings"),
  );
  introLines.push(...warnings);
  if (message.link !== null) introLines.push(markdownLink(message.link, "Open the crawl in linkpatrol"));
  const intro = {
    title: clip(message.title, 256),
    description: clip(introLines.join("\n"), 1_800),
    color: COLOURS[message.tone],
    footer: { text: clip(message.footer, 200) },
  };
  const embeds: object[] = [intro];
  let left = EMBEDS_CHARS - embedChars(intro);
  message.sections.forEach((section, index) => {
    const share = Math.min(DESCRIPTION_CHARS, Math.floor(left / (message.sections.length - index)));
    const title = clip(section.heading, 256);
    const items = section.items
      .map((item) => boundedItem(item, itemText, (t) => t.length, Math.max(0, share - title.length - 60)))
      .filter((t): t is string => t !== null);
    const lines = fitPieces(
      items,
      share - title.length,
      (t) => t.length + 1,
      (n) => `• ${andMore(n, "more URLs")}`,
      section.moreTargets + section.items.length - items.length,
    );
    const embed = { title, description: lines.join("\n"), color: COLOURS[section.key === "fixed" ? "fixed" : "broken"] };
    left -= embedChars(embed);
    embeds.push(embed);
  });
  const body = { content: clip(escapeMarkdown(message.title), 2_000), embeds, allowed_mentions: { parse: [] } };
  return body;
});

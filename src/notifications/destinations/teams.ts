import { webhookUrlDestination } from "../destination.ts";
import { linkable } from "../escape.ts";
import { andMore, boundedItem, fitPieces } from "../fit.ts";
import type { Message, MessageItem } from "../message.ts";
import { clip, oneLine } from "../plain-text.ts";

/**
 * Microsoft Teams through a Workflows webhook (the URL is its secret): one Adaptive Card of TextRuns, never read
 * as markdown, so crawled text formats nothing. Kept under 26,000 bytes; Teams refuses ~28 KB.
 */

const BODY_BYTES = 26_000;
const LABEL_CHARS = 120;

type Run = { type: "TextRun"; text: string; weight?: string; isSubtle?: boolean; selectAction?: object };

function run(text: string, extra: Partial<Run> = {}): Run {
  return { type: "TextRun", text: oneLine(text), ...extra };
}

function linkRun(url: string): Run {
  const href = linkable(url);
  return href === null ? run(clip(url, LABEL_CHARS)) : run(clip(url, LABEL_CHARS), { selectAction: { type: "Action.OpenUrl", url: href } });
}

function paragraph(inlines: Run[], extra: object = {}): object {
  return { type: "RichTextBlock", inlines, ...extra };
}

function itemBlocks(item: MessageItem): object[] {
  const blocks = [paragraph([run("• "), linkRun(item.url), run(` — ${item.status}${item.since === null ? "" : ` · ${item.since}`}`)])];
  for (const source of item.sources) {
    blocks.push(paragraph([run("from "), linkRun(source.url), run(source.text === "" ? "" : ` “${source.text}”`, { isSubtle: true })], { spacing: "None" }));
  }
  if (item.moreSources > 0) blocks.push(paragraph([run(andMore(item.moreSources, "more pages"), { isSubtle: true })], { spacing: "None" }));
  return blocks;
}

const bytes = (blocks: object[]) => Buffer.byteLength(JSON.stringify(blocks), "utf8") + 1;

export const teams = webhookUrlDestination("teams", "the Workflows webhook URL", (message: Message) => {
  const body: object[] = [paragraph([run(clip(message.title, 200), { weight: "Bolder" })]), paragraph([run(message.summary)])];
  if (message.failure !== null) body.push(paragraph([run(message.failure, { weight: "Bolder" })]));
  for (const warning of message.warnings.slice(0, 5)) body.push(paragraph([run(`⚠ ${warning}`)]));
  const footer = paragraph([run(message.footer, { isSubtle: true })]);
  let left = BODY_BYTES - bytes(body) - bytes([footer]) - 1_000;
  message.sections.forEach((section, index) => {
    const share = Math.floor(left / (message.sections.length - index));
    const heading = [paragraph([run(section.heading, { weight: "Bolder" })], { separator: true })];
    const items = section.items.map((item) => boundedItem(item, itemBlocks, bytes, share / 2)).filter((b): b is object[] => b !== null);
    const more = (n: number) => [paragraph([run(`• ${andMore(n, "more URLs")}`)])];
    const kept = fitPieces(items, share - bytes(heading), bytes, more, section.moreTargets + section.items.length - items.length);
    const blocks = [...heading, ...kept.flat()];
    left -= bytes(blocks);
    body.push(...blocks);
  });
  body.push(footer);
  const card = {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    msteams: { width: "Full" },
    body,
    actions: message.link === null ? [] : [{ type: "Action.OpenUrl", title: "Open the crawl in linkpatrol", url: message.link }],
  };
  const payload = { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }] };
  return payload;
});

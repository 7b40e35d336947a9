import { webhookUrlDestination } from "../destination.ts";
import { escapeSlack, slackCode, slackLink } from "../escape.ts";
import { andMore, boundedItem, fitPieces } from "../fit.ts";
import type { Message, MessageItem } from "../message.ts";
import { clip } from "../plain-text.ts";

/**
 * Slack through an incoming webhook (the URL is its secret): Block Kit mrkdwn within Slack's limits, each list
 * ending with "and N more". Crawled texts are code spans; the notification `text` names only domain and counts.
 */

const SECTION_CHARS = 2_900;
const LIST_CHARS = 10_000;
const LIST_BLOCKS = 10;
const LABEL_CHARS = 80;

function itemText(item: MessageItem): string {
  const since = item.since === null ? "" : ` · ${escapeSlack(item.since)}`;
  const lines = [`• ${slackLink(item.url, clip(item.url, LABEL_CHARS))} — ${escapeSlack(item.status)}${since}`];
  for (const source of item.sources) lines.push(`      from ${slackLink(source.url, clip(source.url, LABEL_CHARS))} ${slackCode(source.text)}`);
  if (item.moreSources > 0) lines.push(`      ${andMore(item.moreSources, "more pages")}`);
  return lines.join("\n");
}

/** Lines packed into mrkdwn section blocks of at most SECTION_CHARS each. */
function sections(lines: string[]): object[] {
  const blocks: string[] = [];
  for (const line of lines) {
    const last = blocks.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= SECTION_CHARS) blocks[blocks.length - 1] = `${last}\n${line}`;
    else blocks.push(line);
  }
  return blocks.map((text) => ({ type: "section", text: { type: "mrkdwn", text } }));
}

export const slack = webhookUrlDestination("slack", "the incoming webhook URL", (message: Message) => {
  const blocks: object[] = [{ type: "header", text: { type: "plain_text", text: clip(message.title, 150) } }];
  const intro = [escapeSlack(message.summary), ...(message.failure === null ? [] : [`*${escapeSlack(message.failure)}*`])].join("\n");
  blocks.push(...sections([clip(intro, SECTION_CHARS)]));
  for (const section of message.sections) {
    const items = section.items.map((item) => boundedItem(item, itemText, (t) => t.length, SECTION_CHARS - 100)).filter((t): t is string => t !== null);
    const hidden = section.moreTargets + section.items.length - items.length;
    // Blocks are packed greedily, so a budget of LIST_BLOCKS full sections bounds both characters and blocks.
    const lines = fitPieces(
      items,
      Math.min(LIST_CHARS, (LIST_BLOCKS * SECTION_CHARS) / 2),
      (t) => t.length + 1,
      (n) => `• ${andMore(n, "more URLs")}`,
      hidden,
    );
    blocks.push(...sections([`*${escapeSlack(section.heading)}*`, ...lines]).slice(0, LIST_BLOCKS));
  }
  if (message.warnings.length > 0) {
    const warnings = fitPieces(
      message.warnings.map((w) => `• ${escapeSlack(w)}`),
      SECTION_CHARS - 20,
      (t) => t.length + 1,
      (n) => `• ${andMore(n, "more warnings")}`,
    );
    blocks.push(...sections(["*Warnings*", ...warnings]).slice(0, 1));
  }
  const context =
    message.link === null ? escapeSlack(message.footer) : `${slackLink(message.link, "Open the crawl in linkpatrol")} · ${escapeSlack(message.footer)}`;
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: context }] });
  const body = { text: escapeSlack(message.title), blocks, unfurl_links: false, unfurl_media: false };
  return body;
});

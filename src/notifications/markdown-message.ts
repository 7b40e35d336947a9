import { escapeMarkdown, markdownLink } from "./escape.ts";
import { andMore, boundedItem, fitPieces, type Size } from "./fit.ts";
import type { Message, MessageItem } from "./message.ts";
import { clip } from "./plain-text.ts";

/**
 * A message as escaped markdown within a size budget, for the push services that render markdown (ntfy,
 * Gotify): the summary, the failure, each list with a share of what is left and "and N more", the warnings.
 * The title travels in its own field. `size` says how the destination counts (ntfy: UTF-8 bytes).
 */

const LABEL_CHARS = 80;

function itemMarkdown(item: MessageItem): string {
  const since = item.since === null ? "" : ` · ${escapeMarkdown(item.since)}`;
  const lines = [`- ${markdownLink(item.url, clip(item.url, LABEL_CHARS))} — ${escapeMarkdown(item.status)}${since}`];
  for (const source of item.sources) {
    lines.push(`  from ${markdownLink(source.url, clip(source.url, LABEL_CHARS))}${source.text === "" ? "" : ` “${escapeMarkdown(source.text)}”`}`);
  }
  if (item.moreSources > 0) lines.push(`  ${andMore(item.moreSources, "more pages")}`);
  return lines.join("\n");
}

/** The message's body as markdown, at most `budget` by `size`. */
export function markdownBody(message: Message, budget: number, size: Size<string>): string {
  const head = [escapeMarkdown(message.summary)];
  if (message.failure !== null) head.push(`**${escapeMarkdown(message.failure)}**`);
  const warnings = fitPieces(
    message.warnings.map((w) => `⚠ ${escapeMarkdown(w)}`),
    Math.floor(budget / 5),
    (t) => size(t) + 2,
    (n) => andMore(n, "more warnings"),
  );
  const tail = [
    ...warnings,
    message.link === null
      ? escapeMarkdown(message.footer)
      : `${markdownLink(message.link, "Open the crawl in linkpatrol")} · ${escapeMarkdown(message.footer)}`,
  ];
  const parts = [...head];
  let left = budget - size(head.join("\n\n")) - size(tail.join("\n\n")) - 20;
  message.sections.forEach((section, index) => {
    const share = Math.floor(left / (message.sections.length - index));
    const heading = `**${escapeMarkdown(section.heading)}**`;
    const items = section.items.map((item) => boundedItem(item, itemMarkdown, size, Math.max(0, share / 2))).filter((t): t is string => t !== null);
    const kept = fitPieces(
      items,
      share - size(heading) - 2,
      (t) => size(t) + 1,
      (n) => `- ${andMore(n, "more URLs")}`,
      section.moreTargets + section.items.length - items.length,
    );
    const text = [heading, kept.join("\n")].join("\n");
    left -= size(text) + 2;
    parts.push(text);
  });
  return [...parts, ...tail].join("\n\n");
}

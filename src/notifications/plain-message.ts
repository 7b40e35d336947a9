import { andMore } from "./fit.ts";
import type { Message, MessageItem } from "./message.ts";
import { oneLine } from "./plain-text.ts";

/**
 * A message as plain text: the email's text part and the dashboard's preview of a delivery. Nothing is parsed
 * as markup there, so texts need no escaping; each still goes through oneLine so no crawled text starts a line.
 */

/** The lines of one listed target: the target and its status, then where it is linked from. */
export function plainItem(item: MessageItem): string[] {
  const lines = [`- ${oneLine(item.url)} (${oneLine(item.status)}${item.since === null ? "" : `, ${item.since}`})`];
  for (const source of item.sources) {
    lines.push(`    linked from ${oneLine(source.url)}${source.text === "" ? "" : ` as "${oneLine(source.text)}"`}`);
  }
  if (item.moreSources > 0) lines.push(`    ${andMore(item.moreSources, item.moreSources === 1 ? "more page" : "more pages")}`);
  return lines;
}

/** The whole message as text, lines joined with `\n`. */
export function plainMessage(message: Message): string {
  const lines = [oneLine(message.title), "", oneLine(message.summary)];
  if (message.failure !== null) lines.push("", oneLine(message.failure));
  for (const section of message.sections) {
    lines.push("", `${section.heading}:`);
    for (const item of section.items) lines.push(...plainItem(item));
    if (section.moreTargets > 0) lines.push(`- ${andMore(section.moreTargets, "more URLs")}`);
  }
  if (message.warnings.length > 0) lines.push("", "Warnings:", ...message.warnings.map((warning) => `- ${oneLine(warning)}`));
  lines.push("", message.link === null ? "Set server.public_url to get a link to the crawl's page here." : `See the crawl: ${message.link}`);
  lines.push(message.footer);
  return lines.join("\n");
}

import { escapeHtml, linkable } from "./escape.ts";
import { andMore } from "./fit.ts";
import type { Message, MessageItem, Tone } from "./message.ts";

/**
 * A message as the HTML part of an email: a plain document with inline styles (mail clients drop style
 * sheets), every text escaped and every link an escaped http(s) URL, so nothing a crawled page wrote is ever
 * markup. The digest's own bounds keep it small (a few dozen targets per list).
 */

const TONE_COLOURS: Record<Tone, string> = { failed: "#b42318", broken: "#b54708", fixed: "#067647", clean: "#067647" };

function link(url: string, label = url): string {
  const href = linkable(url);
  return href === null ? escapeHtml(url) : `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
}

function itemHtml(item: MessageItem): string {
  const sources = item.sources.map((source) => `<li>from ${link(source.url)}${source.text === "" ? "" : ` as “${escapeHtml(source.text)}”`}</li>`);
  if (item.moreSources > 0) sources.push(`<li>${andMore(item.moreSources, "more pages")}</li>`);
  const since = item.since === null ? "" : ` · ${escapeHtml(item.since)}`;
  return `<li style="margin-bottom:8px">${link(item.url)} — <strong>${escapeHtml(item.status)}</strong>${since}${sources.length > 0 ? `<ul style="color:#555">${sources.join("")}</ul>` : ""}</li>`;
}

/** The whole message as an HTML document. */
export function htmlMessage(message: Message): string {
  const parts = [`<h2 style="color:${TONE_COLOURS[message.tone]};margin:0 0 8px">${escapeHtml(message.title)}</h2>`, `<p>${escapeHtml(message.summary)}</p>`];
  if (message.failure !== null) parts.push(`<p style="color:${TONE_COLOURS.failed}"><strong>${escapeHtml(message.failure)}</strong></p>`);
  for (const section of message.sections) {
    const more = section.moreTargets > 0 ? `<li>${andMore(section.moreTargets, "more URLs")}</li>` : "";
    parts.push(`<h3 style="margin:16px 0 4px">${escapeHtml(section.heading)}</h3><ul>${section.items.map(itemHtml).join("")}${more}</ul>`);
  }
  if (message.warnings.length > 0) parts.push(`<h3>Warnings</h3><ul>${message.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>`);
  if (message.link !== null) parts.push(`<p><a href="${escapeHtml(message.link)}">Open the crawl in linkpatrol</a></p>`);
  parts.push(`<p style="color:#777;font-size:small">${escapeHtml(message.footer)}</p>`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(message.title)}</title></head><body style="font-family:sans-serif;line-height:1.4">${parts.join("\n")}</body></html>`;
}

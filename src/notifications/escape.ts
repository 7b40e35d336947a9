import { oneLine } from "./plain-text.ts";

/**
 * Escaping per destination, so crawled text is never markup, a mention, a chosen link or a new line. Only http(s)
 * URLs become links.
 */

// Plain string replacements throughout: a replacer function per match cost ~100x more on text full of marks.

/** Text for HTML content or a quoted attribute (email, Matrix formatted_body). */
export function escapeHtml(text: string): string {
  return oneLine(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** `url` when it is an absolute http(s) URL, else null (then it is shown as text, never linked). */
export function linkable(url: string): string | null {
  try {
    const parsed = new URL(oneLine(url));
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** An http(s) URL with the characters that close link syntax (`<>|()[] "'` and spaces) percent-encoded. */
function encodeLinkSyntax(url: string): string {
  let out = url;
  for (const [c, code] of LINK_SYNTAX) out = out.replaceAll(c, code);
  return out.replace(/\s/g, "%20");
}

const LINK_SYNTAX: [string, string][] = ["<", ">", "|", "(", ")", "[", "]", '"', "'", "`", "\\"].map((c) => [
  c,
  `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
]);

/**
 * Slack mrkdwn: `&`, `<` and `>` are the characters Slack asks to be escaped (they start links, mentions such
 * as `<!here>` and dates). Its formatting marks (`*_~` and backticks) have no escape: crawled texts are put in
 * code spans (slackCode), where they do nothing.
 */
export function escapeSlack(text: string): string {
  return oneLine(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Crawled text as a Slack code span: formatting, links and mentions inside it are shown as typed. */
export function slackCode(text: string): string {
  const inner = escapeSlack(text).replaceAll("`", "ˋ");
  return inner === "" ? "(no text)" : `\`${inner}\``;
}

/** A Slack link `<url|label>`; a URL that is not http(s) is shown as escaped text. */
export function slackLink(url: string, label = url): string {
  const href = linkable(url);
  if (href === null) return escapeSlack(url);
  return `<${encodeLinkSyntax(href)}|${escapeSlack(label).replaceAll("|", "¦")}>`;
}

/**
 * CommonMark-style markdown: a backslash before every ASCII punctuation character, so no markdown syntax survives;
 * a word joiner after `@` keeps `@everyone`/`@room` from reading as a mention.
 */
export function escapeMarkdown(text: string): string {
  return oneLine(text)
    .replace(/[!"#$%&'()*+,\-./:;<=>?[\\\]^_`{|}~]/g, "\\$&")
    .replaceAll("@", "\\@\u2060");
}

/** A markdown link `[label](<url>)`; a URL that is not http(s) is shown as escaped text. */
export function markdownLink(url: string, label = url): string {
  const href = linkable(url);
  if (href === null) return escapeMarkdown(url);
  return `[${escapeMarkdown(label)}](<${encodeLinkSyntax(href)}>)`;
}

/** Matrix's plain `body`: no markup is parsed there, but `@room` would still notify the room; a word joiner breaks it. */
export function matrixPlain(text: string): string {
  return oneLine(text).replace(/@/g, "@\u2060");
}

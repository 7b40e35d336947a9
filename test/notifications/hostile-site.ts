import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A loopback site whose broken links carry what a hostile page would put in front of every message format:
 * script and HTML tags, markdown and mrkdwn marks, mentions, link syntax, CR/LF meant to start a new mail
 * header, bidi overrides, and a target URL with the characters that end link syntax (`|`, `)`, `>`).
 */

export const HOSTILE_TEXTS = {
  script: "<script>alert(1)</script>",
  img: '"><img src=x onerror=alert(2)>',
  marks: "*bold* _it_ ~strike~ `code` **strong**",
  mentions: "@here @everyone @room <!channel> <@U123>",
  link: "](http://evil.example/) [click](http://evil.example/x) <http://evil.example/y|click>",
  header: "line one\r\nBcc: victim@example.com\r\nSubject: injected",
  bidi: "abc\u202Etxt.exe",
} as const;

export type HostileKey = keyof typeof HOSTILE_TEXTS;

/** The path of the broken target each text links to. */
export const HOSTILE_PATHS: Record<HostileKey, string> = Object.fromEntries(Object.keys(HOSTILE_TEXTS).map((key) => [key, `/missing-${key}`])) as Record<
  HostileKey,
  string
>;

/** A target whose URL holds `|`, `)` and (encoded by the URL parser) `>`. */
export const ODD_PATH = "/odd|pipe)paren>gt";

function htmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\r", "&#13;").replaceAll("\n", "&#10;");
}

/** The site: one page linking to a broken target per hostile text, and one odd URL. */
export async function startHostileSite(): Promise<LoopbackSite> {
  const links = (Object.keys(HOSTILE_TEXTS) as HostileKey[]).map((key) => `<a href="${HOSTILE_PATHS[key]}">${htmlText(HOSTILE_TEXTS[key])}</a>`);
  links.push(`<a href="${ODD_PATH}">odd url</a>`);
  return startLoopbackSite({ "/": { body: `<!doctype html><title>hostile</title><body>${links.join("\n")}</body>` } });
}

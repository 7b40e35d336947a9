import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A loopback site whose link texts, URLs, titles and redirect targets carry script and HTML payloads: what a
 * hostile site would put in front of the dashboard. Every one of its links is broken, so each shows up on the
 * crawl page (as a target, a source page or a link text).
 */

export const PAYLOAD_TEXTS = ['<script>alert("text")</script>', '"><img src=x onerror=alert("img")>', "<svg onload=alert(1)>"];

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

export async function startXssSite(): Promise<LoopbackSite> {
  const links = [
    ...PAYLOAD_TEXTS.map((text, i) => `<a href="/missing-${i}">${escapeHtml(text)}</a>`),
    `<a href="javascript:alert('href')">javascript link</a>`,
    `<a href="/q?x=${escapeHtml('"><script>alert("query")</script>')}">query payload</a>`,
    `<a href="/'onmouseover='alert(1)'">quote payload</a>`,
    `<a href="/redirect">redirect to javascript:</a>`,
    `<a href="/page">page</a>`,
  ];
  return startLoopbackSite({
    "/": { body: `<!doctype html><title>&lt;script&gt;alert("title")&lt;/script&gt;</title><body>${links.join("\n")}</body>` },
    "/page": {
      body: `<!doctype html><title>x</title><a href="/missing-0"><img src="/img-missing.png" alt='"><script>alert("alt")</script>'>&lt;b onclick=alert(2)&gt;</a>`,
    },
    "/redirect": { status: 302, headers: { location: "javascript:alert('redirect')" } },
  });
}

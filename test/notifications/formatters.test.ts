import { describe, expect, test } from "bun:test";
import { discord } from "../../src/notifications/destinations/discord.ts";
import { gotify } from "../../src/notifications/destinations/gotify.ts";
import { matrix } from "../../src/notifications/destinations/matrix.ts";
import { ntfy } from "../../src/notifications/destinations/ntfy.ts";
import { slack } from "../../src/notifications/destinations/slack.ts";
import { teams } from "../../src/notifications/destinations/teams.ts";
import { DIGEST_SOURCES, DIGEST_TARGETS, ERROR_CHARS, TEXT_CHARS, URL_CHARS, type Digest, type DigestSection } from "../../src/notifications/digest.ts";
import { escapeHtml, escapeMarkdown, escapeSlack, slackCode } from "../../src/notifications/escape.ts";
import { shrinkToFit } from "../../src/notifications/fit.ts";
import { htmlMessage } from "../../src/notifications/html-message.ts";
import { messageOf } from "../../src/notifications/message.ts";
import { plainMessage } from "../../src/notifications/plain-message.ts";
import { oneLine } from "../../src/notifications/plain-text.ts";

/**
 * The formatters at their worst, without the network: a digest filled to every bound the digest keeps (25 targets
 * a list, three linking pages each, URLs, texts, errors and warnings at their longest and made of the characters
 * each syntax cares about) is rendered for every destination, and each message stays within its limit and still
 * says how many more there are. The escapers are checked on random text: what a reader sees is what was written.
 */

const NASTY = "*_~`|<>[]()#!@&\"'\\:\u202E\r\n";

function nasty(length: number, seed: number): string {
  let out = "";
  for (let i = 0; out.length < length; i++) out += i % 3 === 0 ? NASTY[(i + seed) % NASTY.length] : String.fromCharCode(97 + ((i * 7 + seed) % 26));
  return out.slice(0, length);
}

function url(seed: number): string {
  return `https://example.com/${encodeURIComponent(nasty(URL_CHARS, seed)).replace(/%7C/g, "|").replace(/%29/g, ")")}`.slice(0, URL_CHARS);
}

function fullSection(seed: number): DigestSection {
  return {
    links: 100_000,
    targets: 40_000,
    items: Array.from({ length: DIGEST_TARGETS }, (_, i) => ({
      url: url(seed + i),
      status_code: 0,
      error: oneLine(nasty(ERROR_CHARS, i)),
      links: 50,
      sources: Array.from({ length: DIGEST_SOURCES }, (_, j) => ({ url: url(seed + i + j + 100), text: oneLine(nasty(TEXT_CHARS, i + j)) })),
      broken_since: "2026-01-01T00:00:00.000Z",
    })),
  };
}

const WORST: Digest = {
  crawl_id: "01a2203a-3737-7000-8afa-aa58a0fd9dc3",
  domain_name: "very-long-subdomain-name.example.com:8443",
  status: "completed",
  failure: null,
  error: null,
  warnings: Array.from({ length: 10 }, (_, i) => oneLine(nasty(ERROR_CHARS, i))),
  truncated: true,
  pages_crawled: 10_000,
  total_links: 2_000_000,
  broken_links: 200_000,
  started_at: "2026-11-28T03:00:00.000Z",
  completed_at: "2026-11-28T04:00:00.000Z",
  compared_with: "01a2203a-3737-7000-8afa-aa58a0fd9dc2",
  previous_failed: true,
  new_broken: fullSection(1),
  still_broken: fullSection(2),
  fixed: fullSection(3),
  not_checked: 123_456,
};

const message = messageOf(WORST, "https://patrol.example.com/ui/crawls/01a2203a-3737-7000-8afa-aa58a0fd9dc3");
const channel = (settings: Record<string, unknown>, secrets: Record<string, unknown>) => ({ settings, secrets });

describe("every destination stays within its limit on the largest digest", () => {
  test("Slack: ≤ 50 blocks, ≤ 3,000 characters a section, ≤ 40,000 in all", () => {
    const body = JSON.parse(slack.render(message, channel({}, { url: "https://hooks.slack.com/services/x" }), "id").body);
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    const texts: string[] = body.blocks.flatMap((b: any) => [b.text?.text, ...(b.elements ?? []).map((e: any) => e.text)]).filter(Boolean);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3_000);
    expect(texts.reduce((sum, t) => sum + t.length, 0)).toBeLessThanOrEqual(40_000);
    expect(texts.filter((t) => /and [\d,]+ more URLs/.test(t))).toHaveLength(3);
  }, 20_000); // renders the largest digest: slow on a loaded machine

  test("Discord: content ≤ 2,000; embeds ≤ 6,000 together, descriptions ≤ 4,096, titles ≤ 256", () => {
    const body = JSON.parse(discord.render(message, channel({}, { url: "https://discord.com/api/webhooks/1/x" }), "id").body);
    expect(body.content.length).toBeLessThanOrEqual(2_000);
    const total = body.embeds.reduce((sum: number, e: any) => sum + e.title.length + e.description.length + (e.footer?.text.length ?? 0), 0);
    expect(total).toBeLessThanOrEqual(6_000);
    for (const embed of body.embeds) {
      expect(embed.description.length).toBeLessThanOrEqual(4_096);
      expect(embed.title.length).toBeLessThanOrEqual(256);
    }
    expect(body.embeds.filter((e: any) => /and [\d,]+ more URLs/.test(e.description))).toHaveLength(3);
  }, 20_000); // renders the largest digest: slow on a loaded machine

  test("Teams ≤ 28 KB; Matrix ≤ 64 KiB; ntfy's message ≤ 4,096 bytes; Gotify's ≤ 10,000 characters", () => {
    const teamsBody = teams.render(message, channel({}, { url: "https://x.example/workflows/x" }), "id").body;
    expect(Buffer.byteLength(teamsBody)).toBeLessThanOrEqual(28_000);
    const matrixBody = matrix.render(message, channel({ homeserver: "https://m.example", room_id: "!r:m.example" }, { access_token: "t" }), "id").body;
    expect(Buffer.byteLength(matrixBody)).toBeLessThanOrEqual(60_000);
    const ntfyBody = JSON.parse(ntfy.render(message, channel({ server_url: "https://ntfy.sh" }, { topic: "t" }), "id").body);
    expect(Buffer.byteLength(ntfyBody.message)).toBeLessThanOrEqual(4_096);
    const gotifyBody = JSON.parse(gotify.render(message, channel({ server_url: "https://g.example" }, { token: "t" }), "id").body);
    expect(gotifyBody.message.length).toBeLessThanOrEqual(10_000);
    for (const text of [teamsBody, JSON.parse(matrixBody).body, ntfyBody.message, gotifyBody.message]) expect(text).toMatch(/and [\d,]+ more URLs/);
  }, 20_000); // renders the largest digest: slow on a loaded machine

  test("email: the HTML part stays under 100 KB (where Gmail clips), listing fewer targets and counting them", () => {
    const fitted = shrinkToFit(message, htmlMessage, (t) => Buffer.byteLength(t), 95_000);
    const html = htmlMessage(fitted);
    const text = plainMessage(fitted);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(95_000);
    const listed = fitted.sections.map((s) => s.items.length);
    expect(listed.every((n) => n > 0 && n < DIGEST_TARGETS)).toBe(true);
    fitted.sections.forEach((section, i) => {
      expect(section.moreTargets).toBe(40_000 - listed[i]!);
    });
    expect(text).toContain(`- and ${(40_000 - listed[0]!).toLocaleString("en-US")} more URLs`);
    expect(text.split("\n").filter((line) => line.startsWith("- https://")).length).toBe(listed.reduce((a, b) => a + b, 0));
    expect(html).not.toMatch(/<(?!\/?(html|head|meta|title|body|h2|h3|p|ul|li|a|strong)\b)[a-z]/i);
  }, 20_000); // renders the largest digest: slow on a loaded machine

  test("a digest with nothing broken still renders for every destination", () => {
    const empty: Digest = {
      ...WORST,
      warnings: [],
      previous_failed: false,
      broken_links: 0,
      new_broken: { links: 0, targets: 0, items: [] },
      still_broken: { links: 0, targets: 0, items: [] },
      fixed: { links: 0, targets: 0, items: [] },
      not_checked: 0,
    };
    const calm = messageOf(empty, null);
    expect(calm.title).toBe("very-long-subdomain-name.example.com:8443: no broken links");
    expect(calm.sections).toEqual([]);
    expect(calm.summary).not.toContain("not checked");
    expect(JSON.parse(slack.render(calm, channel({}, { url: "https://h.example/x" }), "id").body).blocks.length).toBeGreaterThan(1);
    expect(plainMessage(calm)).toContain("Set server.public_url");
  });

  test("links not checked this time are counted in the summary every destination shows, in no list", () => {
    const quiet: Digest = {
      ...WORST,
      warnings: [],
      previous_failed: false,
      new_broken: { links: 0, targets: 0, items: [] },
      fixed: { links: 0, targets: 0, items: [] },
      not_checked: 3,
    };
    const told = messageOf(quiet, null);
    expect(told.summary).toEndWith("3 links broken before were not checked this time.");
    expect(told.sections.map((s) => s.key)).toEqual(["still_broken"]);
    expect(messageOf({ ...quiet, not_checked: 1 }, null).summary).toEndWith("1 link broken before was not checked this time.");
    expect(plainMessage(told)).toContain("3 links broken before were not checked this time.");
    expect(htmlMessage(told)).toContain("3 links broken before were not checked this time.");
    const slackText = JSON.parse(slack.render(told, channel({}, { url: "https://h.example/x" }), "id").body)
      .blocks.map((b: any) => b.text?.text ?? "")
      .join("\n");
    expect(slackText).toContain("3 links broken before were not checked this time.");
    const teamsBody = teams.render(told, channel({}, { url: "https://x.example/workflows/x" }), "id").body;
    expect(teamsBody).toContain("3 links broken before were not checked this time.");
  });
});

describe("escapers", () => {
  // A fixed generator, so a failure names a reproducible input.
  let state = 42;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const samples = Array.from({ length: 500 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 40) }, () => NASTY[Math.floor(random() * NASTY.length)] ?? "a").join(""),
  );

  test("markdown: every ASCII punctuation escaped, so a reader sees exactly the text (on one line)", () => {
    for (const sample of samples) {
      const escaped = escapeMarkdown(sample);
      expect(escaped.replace(/\\[\s\S]/g, "")).not.toMatch(/[*_~`|<>[\]()#!&"'\\:@]/);
      expect(escaped.replace(/\\([!-/:-@[-`{-~])/g, "$1").replaceAll("\u2060", "")).toBe(oneLine(sample));
    }
  });

  test("a bidi control a crawled text still holds (an error, a text stored before it was cleaned) shows as a marker", () => {
    expect(oneLine("abc\u202Etxt.exe\r\nnext\u2066")).toBe("abc⟨U+202E⟩txt.exe next⟨U+2066⟩");
    expect(oneLine("plain  text")).toBe("plain text");
  });

  test("HTML and Slack: no raw <, > or & left; a Slack code span holds no backtick of its own", () => {
    for (const sample of samples) {
      expect(escapeHtml(sample)).not.toMatch(/[<>"']|&(?!(amp|lt|gt|quot|#39);)/);
      expect(escapeSlack(sample)).not.toMatch(/[<>]|&(?!(amp|lt|gt);)/);
      const code = slackCode(sample);
      expect(code.slice(1, -1)).not.toContain("`");
      expect(code).not.toMatch(/[\r\n\u202E]/);
    }
  });
});

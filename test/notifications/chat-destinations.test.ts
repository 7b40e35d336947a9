import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "parse5";
import { startChatReceiver, type ChatReceiver, type ChatRequest } from "../helpers/chat-receiver.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HOSTILE_TEXTS, ODD_PATH, startHostileSite } from "./hostile-site.ts";

/**
 * Every chat destination against a loopback receiver that parses its format: Slack blocks, Discord embeds,
 * a Teams Adaptive Card, a Matrix m.room.message with formatted_body, ntfy's and Gotify's JSON. One crawl of a
 * hostile site goes to one channel of each kind: every hostile text is shown as the text it is, in that
 * format's terms (escaped, in a code span, in a text run), and every link is one the digest made. One crawl of a
 * site with 3,000 broken links goes to a second channel of each kind (channels are per domain): every message
 * stays under its destination's limit and says how many more there are.
 */

const PUBLIC_URL = "https://patrol.example.com/";
const KINDS = ["slack", "discord", "teams", "matrix", "ntfy", "gotify"] as const;
type Kind = (typeof KINDS)[number];
const BIG_LINKS = 3_000;
const LONG_TEXT = `${"long link text ".repeat(12)}*x* <b>y</b> @here`;

let svc: TestService;
let hostile: LoopbackSite;
let big: LoopbackSite;
const receivers = {} as Record<Kind, ChatReceiver>;
const hostileRequest = {} as Record<Kind, ChatRequest>;
const bigRequest = {} as Record<Kind, ChatRequest>;
let hostileCrawl = "";

/** The channel body of `kind` for one domain, its secrets tagged so the test can find them in requests. */
function channelBody(kind: Kind, tag: string, domainId: string): Record<string, unknown> {
  const chat = receivers[kind];
  const common = { kind, name: `${kind} ${tag}`, domain_ids: [domainId], notify_when: "always" };
  switch (kind) {
    case "slack":
      return { ...common, url: chat.url(`/services/T0/B0/SLACKSECRET${tag}`) };
    case "discord":
      return { ...common, url: chat.url(`/api/webhooks/1/DISCORDSECRET${tag}`) };
    case "teams":
      return { ...common, url: chat.url(`/workflows/TEAMSSECRET${tag}`) };
    case "matrix":
      return { ...common, homeserver: chat.url(`/${tag}`), room_id: "!room:example.org", access_token: `MATRIXSECRET${tag}` };
    case "ntfy":
      return { ...common, server_url: chat.url(`/${tag}`), topic: `topic_${tag}`, token: `NTFYSECRET${tag}` };
    case "gotify":
      return { ...common, server_url: chat.url(`/${tag}`), token: `GOTIFYSECRET${tag}` };
  }
}

function requestFor(kind: Kind, tag: string): ChatRequest | undefined {
  return receivers[kind].requests.find((r) => r.path.includes(tag));
}

/** Markdown as a reader sees it: backslash escapes taken out, word joiners gone. */
function unescapeMarkdown(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, "$1").replaceAll("\u2060", "");
}

/** Hrefs of markdown links `[label](<href>)`. */
function markdownHrefs(text: string): string[] {
  return [...text.matchAll(/\]\(<([^>]*)>\)/g)].map((m) => m[1]!);
}

/** Every string value in a JSON value, with the key it sits under. */
function strings(value: unknown, key = ""): [string, string][] {
  if (typeof value === "string") return [[key, value]];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => strings(v, k));
  return [];
}

function allowedHref(href: string): boolean {
  return href.startsWith(hostile.origin) || href.startsWith(big.origin) || href.startsWith(PUBLIC_URL);
}

beforeAll(async () => {
  hostile = await startHostileSite();
  const bigLinks = Array.from({ length: BIG_LINKS }, (_, i) => `<a href="/missing/${i}/${"segment-".repeat(6)}">${LONG_TEXT} ${i}</a>`).join("\n");
  big = await startLoopbackSite({
    "/": { body: `<!doctype html><title>big</title>${bigLinks}<a href="/other">other</a>` },
    "/other": { body: `<!doctype html>${bigLinks}` },
  });
  for (const kind of KINDS) receivers[kind] = await startChatReceiver();
  svc = await startTestService({ server: { public_url: PUBLIC_URL }, notifications: { allow_http: true, allow_private_targets: true } });
  const hostileDomain = await verifiedDomain(svc, hostile.url("/"));
  const bigDomain = await verifiedDomain(svc, big.url("/"));
  for (const kind of KINDS) {
    for (const [tag, domainId] of [
      ["hostile", hostileDomain],
      ["big", bigDomain],
    ] as const) {
      const res = await svc.call("POST", "/channels", { body: channelBody(kind, tag, domainId) });
      if (res.status !== 201) throw new Error(`POST /channels ${kind}: ${res.status} ${res.text}`);
    }
  }
  hostileCrawl = await startCrawl(svc, hostileDomain);
  const bigCrawl = await startCrawl(svc, bigDomain);
  await waitForCrawl(svc, hostileCrawl);
  await waitForCrawl(svc, bigCrawl, 60_000);
  const deadline = Date.now() + 20_000;
  while (KINDS.some((kind) => requestFor(kind, "hostile") === undefined || requestFor(kind, "big") === undefined)) {
    if (Date.now() > deadline) throw new Error(`not every receiver got both messages: ${KINDS.map((k) => `${k}=${receivers[k].requests.length}`).join(" ")}`);
    await Bun.sleep(50);
  }
  for (const kind of KINDS) {
    hostileRequest[kind] = requestFor(kind, "hostile")!;
    bigRequest[kind] = requestFor(kind, "big")!;
  }
}, 90_000); // two crawls (one of 3,000 broken links) and twelve deliveries

afterAll(async () => {
  await svc?.stop();
  await Promise.all([hostile?.stop(), big?.stop(), ...Object.values(receivers).map((r) => r.stop())]);
});

describe("each destination's format, with hostile link texts", () => {
  test("one message per channel, only to its domain's channels, with the destination's secret where it belongs", () => {
    for (const kind of KINDS) expect(receivers[kind].requests).toHaveLength(2);
    expect(hostileRequest.slack.path).toBe("/services/T0/B0/SLACKSECREThostile");
    expect(hostileRequest.matrix.method).toBe("PUT");
    expect(hostileRequest.matrix.headers.authorization).toBe("Bearer MATRIXSECREThostile");
    expect(hostileRequest.ntfy.headers.authorization).toBe("Bearer NTFYSECREThostile");
    expect(hostileRequest.gotify.path).toBe("/hostile/message");
    expect(hostileRequest.gotify.headers["x-gotify-key"]).toBe("GOTIFYSECREThostile");
    for (const kind of KINDS) expect(hostileRequest[kind].headers["content-type"]).toStartWith("application/json");
  });

  test("Slack: Block Kit mrkdwn; texts in code spans with &<> escaped; no mention, link or line the page chose", () => {
    const body = hostileRequest.slack.json;
    expect(body.blocks[0]).toMatchObject({ type: "header", text: { type: "plain_text" } });
    const mrkdwn = strings(body.blocks)
      .filter(([key]) => key === "text")
      .map(([, text]) => text)
      .join("\n");
    expect(mrkdwn).toContain("`&lt;script&gt;alert(1)&lt;/script&gt;`");
    expect(mrkdwn).toContain("`*bold* _it_ ~strike~ ˋcodeˋ **strong**`");
    expect(mrkdwn).toContain("`@here @everyone @room &lt;!channel&gt; &lt;@U123&gt;`");
    expect(mrkdwn).not.toMatch(/<[!@#]/); // no <!here>, <@user>, <#channel>
    const links = [...mrkdwn.matchAll(/<([^|>]+)\|[^>]*>/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(8);
    for (const href of links) expect(allowedHref(href)).toBe(true);
    expect(links).toContain(`${PUBLIC_URL}ui/crawls/${hostileCrawl}`);
    // The odd URL's | and ) are percent-encoded inside the link, so the link syntax stays whole.
    expect(links.some((href) => href.includes("/odd%7Cpipe%29paren%3Egt"))).toBe(true);
    expect(mrkdwn).not.toMatch(/^Bcc:/m);
    expect(mrkdwn).toContain("line one Bcc: victim@example.com Subject: injected");
    expect(body.text).not.toContain("<");
  });

  test("Discord: embeds with markdown escaped and no mentions allowed", () => {
    const body = hostileRequest.discord.json;
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const description = body.embeds.map((e: any) => e.description).join("\n");
    for (const text of [HOSTILE_TEXTS.script, HOSTILE_TEXTS.marks, HOSTILE_TEXTS.link, HOSTILE_TEXTS.img]) {
      expect(unescapeMarkdown(description)).toContain(text);
      expect(description).not.toContain(text);
    }
    expect(description).toContain("\\*bold\\*");
    expect(description).toContain("\\@\u2060everyone");
    for (const href of markdownHrefs(description)) expect(allowedHref(href)).toBe(true);
    expect(markdownHrefs(description)).toContain(`${PUBLIC_URL}ui/crawls/${hostileCrawl}`);
    expect(body.embeds[0].title).toContain("8 new broken links");
  });

  test("Teams: an Adaptive Card of text runs (never markdown); links only through OpenUrl actions to the digest's URLs", () => {
    const body = hostileRequest.teams.json;
    expect(body.type).toBe("message");
    const card = body.attachments[0].content;
    expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card.type).toBe("AdaptiveCard");
    expect(card.body.every((block: any) => block.type === "RichTextBlock")).toBe(true);
    const runs = card.body.flatMap((block: any) => block.inlines);
    expect(runs.every((run: any) => run.type === "TextRun")).toBe(true);
    const text = runs.map((run: any) => run.text).join("");
    for (const hostileText of [HOSTILE_TEXTS.script, HOSTILE_TEXTS.marks, HOSTILE_TEXTS.link, HOSTILE_TEXTS.mentions]) expect(text).toContain(hostileText);
    const urls = [...runs.filter((run: any) => run.selectAction).map((run: any) => run.selectAction.url), ...card.actions.map((a: any) => a.url)];
    for (const url of urls) expect(allowedHref(url)).toBe(true);
    expect(card.actions[0]).toEqual({ type: "Action.OpenUrl", title: "Open the crawl in linkpatrol", url: `${PUBLIC_URL}ui/crawls/${hostileCrawl}` });
  });

  test("Matrix: an m.notice PUT with the delivery id as transaction id; formatted_body escaped HTML, no @room in the body", async () => {
    const request = hostileRequest.matrix;
    const channels = (await svc.call("GET", "/channels")).json.data;
    const matrixChannel = channels.find((c: any) => c.name === "matrix hostile");
    const [delivery] = (await svc.call("GET", `/channels/${matrixChannel.id}/deliveries`)).json.data;
    expect(request.path).toBe(`/hostile/_matrix/client/v3/rooms/!room%3Aexample.org/send/m.room.message/${delivery.id}`);
    const content = request.json;
    expect(content).toMatchObject({ msgtype: "m.notice", format: "org.matrix.custom.html", "m.mentions": {} });
    const names = new Set<string>();
    const hrefs: string[] = [];
    let text = "";
    const walk = (node: any) => {
      if (node.tagName) names.add(node.tagName);
      if (node.tagName === "a") hrefs.push(node.attrs.find((a: any) => a.name === "href").value);
      if (node.nodeName === "#text") text += node.value;
      for (const child of node.childNodes ?? []) walk(child);
    };
    walk(parse(content.formatted_body));
    expect(names.has("script")).toBe(false);
    expect(names.has("img")).toBe(false);
    expect(text).toContain(HOSTILE_TEXTS.script);
    expect(text).toContain(HOSTILE_TEXTS.img);
    for (const href of hrefs) expect(allowedHref(href)).toBe(true);
    expect(content.body).not.toMatch(/@room/);
    expect(content.body).toContain("@\u2060room");
    expect(content.body).not.toMatch(/^Bcc:/m);
  });

  test("ntfy and Gotify: JSON with the title and click link in fields, the body escaped markdown", () => {
    const ntfy = hostileRequest.ntfy.json;
    expect(hostileRequest.ntfy.path).toBe("/hostile");
    expect(ntfy).toMatchObject({ topic: "topic_hostile", markdown: true, click: `${PUBLIC_URL}ui/crawls/${hostileCrawl}` });
    expect(ntfy.title).toContain("8 new broken links");
    const gotify = hostileRequest.gotify.json;
    expect(gotify.extras).toEqual({
      "client::display": { contentType: "text/markdown" },
      "client::notification": { click: { url: `${PUBLIC_URL}ui/crawls/${hostileCrawl}` } },
    });
    for (const message of [ntfy.message, gotify.message]) {
      expect(message).not.toContain("<script>");
      expect(unescapeMarkdown(message)).toContain(HOSTILE_TEXTS.script);
      expect(unescapeMarkdown(message)).toContain(HOSTILE_TEXTS.link);
      for (const href of markdownHrefs(message)) expect(allowedHref(href)).toBe(true);
      expect(markdownHrefs(message).some((href) => href.includes(ODD_PATH.slice(0, 4)))).toBe(true);
    }
  });

  test("no request or stored answer carries another channel's secret, and no channel listing shows one", async () => {
    for (const kind of KINDS) expect(hostileRequest[kind].body).not.toContain("big");
    const listing = (await svc.call("GET", "/channels")).text;
    for (const secret of ["SLACKSECRET", "DISCORDSECRET", "TEAMSSECRET", "MATRIXSECRET", "NTFYSECRET", "GOTIFYSECRET", "topic_"])
      expect(listing).not.toContain(secret);
  });
});

describe(`size bounds: a crawl with ${BIG_LINKS.toLocaleString("en-US")} new broken links`, () => {
  test("Slack: ≤ 50 blocks, ≤ 3,000 characters a section, ≤ 40,000 in all, and 'and N more'", () => {
    const body = bigRequest.slack.json;
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    const texts = strings(body.blocks)
      .filter(([key]) => key === "text")
      .map(([, text]) => text);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3_000);
    expect(texts.reduce((sum, t) => sum + t.length, 0) + body.text.length).toBeLessThanOrEqual(40_000);
    expect(texts.join("\n")).toMatch(/• and [\d,]+ more URLs/);
    expect(body.blocks[0].text.text).toContain("6,000 new broken links");
  });

  test("Discord: content ≤ 2,000, ≤ 10 embeds, descriptions ≤ 4,096, all embeds ≤ 6,000, and 'and N more'", () => {
    const body = bigRequest.discord.json;
    expect(body.content.length).toBeLessThanOrEqual(2_000);
    expect(body.embeds.length).toBeLessThanOrEqual(10);
    let total = 0;
    for (const embed of body.embeds) {
      expect(embed.description.length).toBeLessThanOrEqual(4_096);
      expect((embed.title ?? "").length).toBeLessThanOrEqual(256);
      total += (embed.title ?? "").length + embed.description.length + (embed.footer?.text.length ?? 0);
    }
    expect(total).toBeLessThanOrEqual(6_000);
    expect(body.embeds.map((e: any) => e.description).join("\n")).toMatch(/and [\d,]+ more URLs/);
  });

  test("Teams: the card under 28 KB, and 'and N more'", () => {
    expect(Buffer.byteLength(bigRequest.teams.body)).toBeLessThanOrEqual(28_000);
    expect(bigRequest.teams.body).toMatch(/and [\d,]+ more URLs/);
  });

  test("Matrix: the event under 64 KiB; ntfy under 4,096 bytes; Gotify under 10,000 characters; each says how many more", () => {
    expect(Buffer.byteLength(bigRequest.matrix.body)).toBeLessThanOrEqual(60_000);
    expect(bigRequest.matrix.json.body).toMatch(/and [\d,]+ more URLs/);
    expect(Buffer.byteLength(bigRequest.ntfy.json.message)).toBeLessThanOrEqual(4_096);
    expect(bigRequest.ntfy.json.message).toMatch(/and [\d,]+ more URLs/);
    expect(bigRequest.gotify.json.message.length).toBeLessThanOrEqual(10_000);
    expect(bigRequest.gotify.json.message).toMatch(/and [\d,]+ more URLs/);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "parse5";
import { startChatReceiver, type ChatReceiver } from "../helpers/chat-receiver.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { HOSTILE_TEXTS, startHostileSite } from "../notifications/hostile-site.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";

/**
 * Notification channel pages: the list with a form per kind, creating a channel (a refused form shown again
 * without its secrets), Send test and its result, the delivery log with each digest's message as text (a
 * hostile link text stays text), redeliver and delete; a read-only key sees no form and may change nothing.
 */

const SECRET = "SLACKTOKENabcdef123";
let svc: TestService;
let chat: ChatReceiver;
let site: LoopbackSite;
let client: DashboardClient;
let domainId = "";
let channelId = "";

beforeAll(async () => {
  chat = await startChatReceiver();
  site = await startHostileSite();
  svc = await startTestService({ notifications: { allow_http: true, allow_private_targets: true } });
  domainId = await verifiedDomain(svc, site.url("/"));
  client = await signedInClient(svc);
}, 20_000);
afterAll(async () => {
  await svc?.stop();
  await chat?.stop();
  await site?.stop();
});

/** Every element name of a page, read by a real HTML parser. */
function elements(html: string): string[] {
  const names: string[] = [];
  const walk = (node: any) => {
    if (node.tagName) names.push(node.tagName);
    for (const child of node.childNodes ?? []) walk(child);
    if (node.content) walk(node.content);
  };
  walk(parse(html));
  return names;
}

describe("channel pages", () => {
  test("the list offers a form for each kind; each form has that kind's fields", async () => {
    const list = await client.get("/ui/channels");
    expect(list.status).toBe(200);
    expect(list.html).toContain("No channel yet.");
    for (const kind of ["email", "slack", "discord", "teams", "matrix", "ntfy", "gotify"]) expect(list.html).toContain(`/ui/channels/new?kind=${kind}`);
    const email = await client.get("/ui/channels/new?kind=email");
    for (const field of ["host", "security", "port", "username", "password", "from", "to"]) expect(email.html).toContain(`name="${field}"`);
    expect(email.html).toMatch(/name="password" type="password"/);
    expect(email.html).toContain(`value="${domainId}"`);
    expect((await client.get("/ui/channels/new?kind=pager")).status).toBe(404);
  });

  test("a refused form is shown again with the reason and what was typed, never the secret", async () => {
    const answer = await client.post("/ui/channels", {
      kind: "email",
      name: "mail",
      host: "smtp.example.com",
      from: "not-an-address",
      to: "a@example.com",
      password: "typed-secret",
    });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain("notice error");
    expect(answer.html).toContain("<li>From: Invalid email address</li>");
    expect(answer.html).not.toContain("field: from");
    expect(answer.html).toContain('value="smtp.example.com"');
    expect(answer.html).not.toContain("typed-secret");
  });

  test("an email channel takes its To list one per line or comma-separated", async () => {
    const answer = await client.post("/ui/channels", {
      kind: "email",
      name: "mail",
      host: "smtp.example.com",
      security: "tls",
      from: "lp@example.com",
      to: "a@example.com, b@example.com\nc@example.com",
    });
    expect(answer.status).toBe(303);
    const created = (await svc.runtime.channels.list()).items.find((c) => c.name === "mail")!;
    expect(created.settings).toMatchObject({ to: ["a@example.com", "b@example.com", "c@example.com"], port: 465, security: "tls" });
    await svc.runtime.channels.delete(created.id);
  });

  test("creating a Slack channel for one domain, then Send test", async () => {
    const answer = await client.post("/ui/channels", {
      kind: "slack",
      name: "team chat",
      url: chat.url(`/services/T/B/${SECRET}`),
      notify_when: "always",
      domain_ids: domainId,
    });
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(/^\/ui\/channels\/[0-9a-f-]+\?notice=created$/);
    channelId = answer.location!.split("/")[3]!.split("?")[0]!;
    const page = await client.get(answer.location!);
    expect(page.html).toContain("Channel created.");
    expect(page.html).toContain(`${chat.origin}/…`);
    expect(page.html).not.toContain(SECRET);
    expect(page.html).toContain(`for ${site.host}`);

    const tested = await client.post(`/ui/channels/${channelId}/test`);
    expect(tested.status).toBe(200);
    expect(tested.html).toMatch(/id="test-result">Test delivered: HTTP 200 in \d+ ms/);
    expect(chat.requests.at(-1)!.json.blocks[0].text.text).toStartWith("[test]");
  });

  test("the delivery log shows each digest as text: a hostile link text is text, and the delivery can be redelivered", async () => {
    await waitForCrawl(svc, await startCrawl(svc, domainId));
    let deliveries = (await svc.runtime.channels.deliveries(channelId, 1, 20)).items;
    for (let i = 0; i < 200 && deliveries[0]?.state !== "delivered"; i++) {
      await Bun.sleep(50);
      deliveries = (await svc.runtime.channels.deliveries(channelId, 1, 20)).items;
    }
    expect(deliveries[0]!.state).toBe("delivered");
    const page = await client.get(`/ui/channels/${channelId}`);
    expect(page.html).toContain(`${site.host}: 8 new broken links</summary>`);
    expect(page.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.html).not.toContain(HOSTILE_TEXTS.script);
    expect(elements(page.html)).not.toContain("img");
    expect(page.html).toContain("HTTP 200 in");
    const redelivered = await client.post(`/ui/channels/${channelId}/deliveries/${deliveries[0]!.id}/redeliver`);
    expect(redelivered.status).toBe(303);
    expect(redelivered.location).toBe(`/ui/channels/${channelId}?notice=redelivered`);
  });

  test("a read-only key sees the pages without a form, and may change nothing", async () => {
    const reader = await signedInClient(svc, await svc.keyWith("notifications:read"));
    for (const path of ["/ui/channels", `/ui/channels/${channelId}`]) {
      const page = await reader.get(path);
      expect(page.status).toBe(200);
      const forms = [...page.html.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"/g)].map((m) => m[1]);
      expect(forms).toEqual(["/ui/sign-out"]);
    }
    expect((await reader.get("/ui/channels/new?kind=slack")).status).toBe(403);
    for (const path of ["/ui/channels", `/ui/channels/${channelId}/test`, `/ui/channels/${channelId}/delete`]) {
      expect((await reader.post(path, { kind: "slack", name: "x", url: chat.url("/x") })).status).toBe(403);
    }
    const none = await signedInClient(svc, await svc.keyWith("crawls:read"));
    expect((await none.get("/ui/channels")).status).toBe(403);
  });

  test("delete removes the channel", async () => {
    const answer = await client.post(`/ui/channels/${channelId}/delete`);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe("/ui/channels?notice=deleted");
    expect((await client.get("/ui/channels?notice=deleted")).html).toContain("Channel deleted.");
    expect((await client.get(`/ui/channels/${channelId}`)).status).toBe(404);
  });
});

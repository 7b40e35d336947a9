import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { startChatReceiver, type ChatReceiver } from "../helpers/chat-receiver.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * /v1/channels through real sockets: creating each kind (its secrets never in any answer), validation (400 per
 * field, 422 for URLs the rules refuse, private chat URLs only when allowed, SMTP hosts always), the
 * notifications scopes, PATCH and DELETE, Send test, the delivery log with redeliver, and secrets kept out of
 * the log and the stored answers. Webhooks' own delivery log does not change.
 */

const SECRET = "TOKENxyz123456789";
let svc: TestService;
let strict: TestService;
let chat: ChatReceiver;
let hookReceiver: ChatReceiver;
let site: LoopbackSite;
const logLines: string[] = [];

beforeAll(async () => {
  chat = await startChatReceiver();
  hookReceiver = await startChatReceiver();
  site = await startLoopbackSite({ "/": { body: "<a href='/gone'>gone</a>" }, "/gone": { status: 404 } });
  svc = await startTestService(
    {
      notifications: { allow_http: true, allow_private_targets: true, timeout: "1s" },
      webhooks: { retry_schedule: [], allow_http: true, allow_private_targets: true },
    },
    { logger: createLogger("debug", (line) => logLines.push(line)) },
  );
  strict = await startTestService({ notifications: { timeout: "1s" } });
}, 20_000);
afterAll(async () => {
  await svc?.stop();
  await strict?.stop();
  await chat?.stop();
  await hookReceiver?.stop();
  await site?.stop();
}, 15_000); // email channels to unreachable hosts may have an attempt in flight (1 s timeout)

const slackBody = (extra: Record<string, unknown> = {}) => ({ kind: "slack", name: "team", url: chat.url(`/services/T/B/${SECRET}`), ...extra });

describe("creating channels", () => {
  test("each kind is created; no answer ever carries a secret", async () => {
    const bodies = [
      slackBody(),
      { kind: "discord", name: "d", url: chat.url(`/api/webhooks/1/${SECRET}`) },
      { kind: "teams", name: "t", url: chat.url(`/workflows/${SECRET}`) },
      { kind: "matrix", name: "m", homeserver: chat.origin, room_id: "!r:example.org", access_token: SECRET },
      { kind: "ntfy", name: "n", server_url: chat.origin, topic: "mytopic", token: SECRET },
      { kind: "gotify", name: "g", server_url: chat.origin, token: SECRET },
      { kind: "email", name: "e", host: "10.1.2.3", from: "lp@example.com", to: ["a@example.com"], username: "u", password: SECRET },
    ];
    for (const body of bodies) {
      const res = await svc.call("POST", "/channels", { body });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain(SECRET);
      expect(res.json.data).toMatchObject({ kind: body.kind, name: body.name, notify_when: "changed", domains: null, active: true });
    }
    const list = await svc.call("GET", "/channels");
    expect(list.json.meta.total).toBe(bodies.length);
    expect(list.text).not.toContain(SECRET);
    expect(list.text).not.toContain("mytopic");
    const byKind = Object.fromEntries(list.json.data.map((c: any) => [c.kind, c]));
    expect(byKind.slack).toMatchObject({ target: `${chat.origin}/…`, settings: {}, secrets_set: ["url"] });
    expect(byKind.ntfy).toMatchObject({ settings: { server_url: chat.origin }, secrets_set: ["token", "topic"] });
    expect(byKind.email).toMatchObject({
      settings: { host: "10.1.2.3", port: 587, security: "starttls", from: "lp@example.com", to: ["a@example.com"] },
      target: "10.1.2.3:587 → a@example.com",
    });
    const one = await svc.call("GET", `/channels/${byKind.matrix.id}`);
    expect(one.json.data).toMatchObject({ target: `!r:example.org on ${chat.origin}`, secrets_set: ["access_token"] });
    expect(one.text).not.toContain(SECRET);
  });

  test("bad bodies are 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "pager", name: "x" }, "kind"],
      [{ kind: "slack", name: "x" }, "url"],
      [{ ...slackBody(), host: "smtp.example.com" }, "host"],
      [{ kind: "email", name: "x", host: "h", from: "not an address", to: ["a@example.com"] }, "from"],
      [{ kind: "email", name: "x", host: "h", from: "a@example.com", to: [] }, "to"],
      [{ kind: "matrix", name: "x", homeserver: chat.origin, room_id: "#alias:example.org", access_token: "t" }, "room_id"],
      [{ kind: "ntfy", name: "x", topic: "has space" }, "topic"],
      [slackBody({ notify_when: "sometimes" }), "notify_when"],
    ];
    for (const [body, field] of cases) {
      const error = expectErrorEnvelope(await svc.call("POST", "/channels", { body }), 400, "invalid_request");
      expect(error.details?.some((d) => String(d.field).startsWith(field))).toBe(true);
    }
    const unknownDomain = expectErrorEnvelope(
      await svc.call("POST", "/channels", { body: slackBody({ domain_ids: ["0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f"] }) }),
      400,
      "invalid_request",
    );
    expect(unknownDomain.message).toContain("unknown domain id");
  });

  test("chat URLs: https only and public addresses only unless allowed; an SMTP host may be private", async () => {
    const http = expectErrorEnvelope(
      await strict.call("POST", "/channels", { body: { kind: "slack", name: "x", url: "http://hooks.example.com/x" } }),
      422,
      "unsafe_url",
    );
    expect(http.message).toContain("notifications.allow_http");
    const privateUrl = expectErrorEnvelope(
      await strict.call("POST", "/channels", { body: { kind: "gotify", name: "x", server_url: "https://10.0.0.5/", token: "t" } }),
      422,
      "unsafe_url",
    );
    expect(privateUrl.message).toContain("private");
    expectErrorEnvelope(
      await strict.call("POST", "/channels", { body: { kind: "discord", name: "x", url: "https://user:pw@discord.example/x" } }),
      422,
      "unsafe_url",
    );
    const smtp = await strict.call("POST", "/channels", {
      body: { kind: "email", name: "x", host: "192.168.1.2", security: "none", from: "a@example.com", to: ["b@example.com"] },
    });
    expect(smtp.status).toBe(201);
    expect(smtp.json.data.settings.port).toBe(25);
  });
});

describe("scopes", () => {
  test("notifications:read reads, notifications:write writes, webhooks scopes do neither, admin does both", async () => {
    const reader = await svc.keyWith("notifications:read");
    const writer = await svc.keyWith("notifications:write");
    const hooks = await svc.keyWith("webhooks:read", "webhooks:write");
    expect((await svc.call("GET", "/channels", { key: reader })).status).toBe(200);
    expectErrorEnvelope(await svc.call("POST", "/channels", { key: reader, body: slackBody() }), 403, "forbidden");
    expect((await svc.call("POST", "/channels", { key: writer, body: slackBody({ name: "by writer" }) })).status).toBe(201);
    expectErrorEnvelope(await svc.call("GET", "/channels", { key: writer }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("GET", "/channels", { key: hooks }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("POST", "/channels", { key: hooks, body: slackBody() }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("GET", "/webhooks", { key: reader }), 403, "forbidden");
  });
});

describe("changing, testing and removing a channel", () => {
  test("PATCH renames it, narrows it to chosen domains and switches it off and on; DELETE removes it", async () => {
    const domainId = await verifiedDomain(svc, "http://patch.example/");
    const id = (await svc.call("POST", "/channels", { body: slackBody({ name: "to change" }) })).json.data.id;
    const patched = await svc.call("PATCH", `/channels/${id}`, { body: { name: "changed", notify_when: "failure", domain_ids: [domainId], active: false } });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({
      name: "changed",
      notify_when: "failure",
      domains: [{ id: domainId, name: "patch.example" }],
      active: false,
      disabled_reason: "switched off by request",
    });
    const back = await svc.call("PATCH", `/channels/${id}`, { body: { active: true, domain_ids: null } });
    expect(back.json.data).toMatchObject({ active: true, disabled_reason: null, domains: null });
    expectErrorEnvelope(await svc.call("PATCH", `/channels/${id}`, { body: { url: "https://x.example/" } }), 400, "invalid_request");
    expect((await svc.call("DELETE", `/channels/${id}`)).status).toBe(204);
    expectErrorEnvelope(await svc.call("GET", `/channels/${id}`), 404, "not_found");
    expectErrorEnvelope(await svc.call("DELETE", `/channels/${id}`), 404, "not_found");
  });

  test("Send test posts a sample message now and reports the answer; a failure's answer is stripped of the secret", async () => {
    const id = (await svc.call("POST", "/channels", { body: slackBody({ name: "tested" }) })).json.data.id;
    const before = chat.requests.length;
    const ok = await svc.call("POST", `/channels/${id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.json.data).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(chat.requests[before]!.json.blocks[0].text.text).toBe("[test] www.example.com: 1 new broken link, 1 link fixed");
    chat.script(500);
    const failed = await svc.call("POST", `/channels/${id}/test`);
    expect(failed.json.data).toMatchObject({ delivered: false, status_code: 500 });
    expect(failed.json.data.error).toContain("HTTP 500");
    expect(failed.json.data.response).toContain("[redacted]");
    expect(failed.text).not.toContain(SECRET);
  });
});

describe("the delivery log", () => {
  test("a crawl's digest is logged with its attempts; a dead one is redelivered; webhooks' log is unchanged; no secret in answers or logs", async () => {
    const domainId = await verifiedDomain(svc, site.url("/"));
    // Its own receiver: the channels made above are for every domain and get this crawl's digest too.
    const own = await startChatReceiver();
    const id = (
      await svc.call("POST", "/channels", { body: { kind: "slack", name: "logged", url: own.url(`/services/T/B/${SECRET}`), domain_ids: [domainId] } })
    ).json.data.id;
    const hook = (await svc.call("POST", "/webhooks", { body: { url: hookReceiver.url("/webhook"), events: ["crawl.completed"] } })).json.data;
    own.script(503);
    await waitForCrawl(svc, await startCrawl(svc, domainId));

    let deliveries: any[] = [];
    for (let i = 0; i < 200 && deliveries[0]?.state !== "dead"; i++) {
      deliveries = (await svc.call("GET", `/channels/${id}/deliveries`)).json.data;
      await Bun.sleep(50);
    }
    expect(deliveries).toHaveLength(1);
    const [dead] = deliveries;
    expect(dead).toMatchObject({ event: "notification.digest", state: "dead", last_status_code: 503 });
    expect(dead.attempts[0].response_body).toContain("[redacted]");
    expect(JSON.stringify(dead)).not.toContain(SECRET);

    const redelivered = await svc.call("POST", `/channels/${id}/deliveries/${dead.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    expect(redelivered.json.data).toMatchObject({ id: dead.id, state: "pending" });
    for (let i = 0; i < 200 && deliveries[0]?.state !== "delivered"; i++) {
      deliveries = (await svc.call("GET", `/channels/${id}/deliveries`)).json.data;
      await Bun.sleep(50);
    }
    expect(deliveries[0]).toMatchObject({ id: dead.id, state: "delivered" });
    expect(deliveries[0].attempts.map((a: any) => a.status_code)).toEqual([503, 200]);
    expectErrorEnvelope(await svc.call("POST", `/channels/${id}/deliveries/${hook.id}/redeliver`), 404, "not_found");

    const hookDeliveries = (await svc.call("GET", `/webhooks/${hook.id}/deliveries`)).json.data;
    expect(hookDeliveries.map((d: any) => d.event)).toEqual(["crawl.completed"]);
    expectErrorEnvelope(await svc.call("GET", `/webhooks/${id}/deliveries`), 404, "not_found");

    expect(logLines.some((line) => line.includes('"msg":"notification attempt"') && line.includes(id))).toBe(true);
    // Counted apart from webhooks (this crawl's one webhook delivery; the channels' dead and delivered ones).
    const metrics = (await svc.call("GET", "/metrics", { root: true })).text;
    expect(metrics).toMatch(/linkpatrol_notification_attempts_total\{outcome="dead"\} [1-9]/);
    expect(metrics).toMatch(/linkpatrol_notification_deliveries\{state="delivered"\} [1-9]/);
    expect(metrics).toContain('linkpatrol_webhook_deliveries{state="delivered"} 1');
    expect(metrics).toContain('linkpatrol_webhook_attempts_total{outcome="delivered"} 1');
    for (const line of logLines) expect(line).not.toContain(SECRET);
    await own.stop();
  }, 20_000);

  test("the OpenAPI document describes /channels from the same schemas, one body per kind", async () => {
    const doc = (await svc.call("GET", "/openapi.json")).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/channels",
        "/v1/channels/{id}",
        "/v1/channels/{id}/test",
        "/v1/channels/{id}/deliveries",
        "/v1/channels/{id}/deliveries/{delivery_id}/redeliver",
      ]),
    );
    const create = doc.components.schemas.CreateChannel;
    expect(create.discriminator.propertyName).toBe("kind");
    expect(Object.keys(create.discriminator.mapping).sort()).toEqual(["discord", "email", "gotify", "matrix", "ntfy", "slack", "teams"]);
    expect(doc.components.schemas.CreateChannel_email.required).toEqual(expect.arrayContaining(["host", "from", "to", "name", "kind"]));
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * The webhook endpoints over a real socket: creation rules (https only, no credentials, no private target),
 * what each answer shows (the secret only once), delete, the synchronous test send reporting failures honestly,
 * and every bad input with the contract's error envelope.
 */

let svc: TestService;
let open: TestService;
let receiver: WebhookReceiver;

const ALL_EVENTS = ["crawl.started", "crawl.completed", "crawl.failed", "broken_links.found"];

beforeAll(async () => {
  receiver = await startWebhookReceiver({ tls: false });
  const resolve = tableResolver({ "hooks.example.test": "93.184.216.34", "inside.example.test": "10.0.0.1" });
  svc = await startTestService({}, { resolve });
  open = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
});
afterAll(async () => {
  await svc?.stop();
  await open?.stop();
  await receiver?.stop();
});

const create = (service: TestService, body: unknown) => service.call("POST", "/webhooks", { body });

describe("POST /webhooks", () => {
  test("201 with the secret once, a warning, and every event kind when events are omitted", async () => {
    const res = await create(svc, { url: "https://hooks.example.test/in", name: "ops" });
    expect(res.status).toBe(201);
    expect(res.json.meta.warning).toMatch(/secret/);
    expect(res.json.data).toMatchObject({ url: "https://hooks.example.test/in", name: "ops", events: ALL_EVENTS, active: true, disabled_reason: null });
    expect(res.json.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const other = await create(svc, { url: "https://hooks.example.test/other", events: [] });
    expect(other.json.data.events).toEqual(ALL_EVENTS);
    expect(other.json.data.name).toBeNull();
    expect(other.json.data.secret).not.toBe(res.json.data.secret);
  });

  test("the list never shows a secret; delete answers 204 and the webhook is gone", async () => {
    const created = await create(svc, { url: "https://hooks.example.test/listed", events: ["crawl.failed", "crawl.failed"] });
    expect(created.json.data.events).toEqual(["crawl.failed"]);
    const list = await svc.call("GET", "/webhooks");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("whsec_");
    expect(list.json.meta.total).toBe(list.json.data.length);
    expect(list.json.data[0]).toMatchObject({ id: created.json.data.id, events: ["crawl.failed"] });
    const removed = await svc.call("DELETE", `/webhooks/${created.json.data.id}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect((await svc.call("GET", "/webhooks")).json.data.some((hook: any) => hook.id === created.json.data.id)).toBe(false);
    expectErrorEnvelope(await svc.call("DELETE", `/webhooks/${created.json.data.id}`), 404, "not_found");
  });

  test.each([
    ["http without webhooks.allow_http", "http://hooks.example.test/in"],
    ["a scheme other than https", "ftp://hooks.example.test/in"],
    ["credentials in the URL", "https://user:pass@hooks.example.test/in"],
    ["a fragment", "https://hooks.example.test/in#token"],
    ["a private address", "https://10.1.2.3/in"],
    ["a name resolving to a private address", "https://inside.example.test/in"],
    ["loopback", "https://127.0.0.1/in"],
  ])("422 unsafe_url for %s", async (_, url) => {
    expectErrorEnvelope(await create(svc, { url }), 422, "unsafe_url");
  });

  test("http and private targets are accepted where the config allows them", async () => {
    expect((await create(open, { url: receiver.ipUrl("/hook") })).status).toBe(201);
  });

  test.each([
    ["an unknown event kind", { url: "https://hooks.example.test/x", events: ["crawl.exploded"] }, "events"],
    ["a non-URL", { url: "not a url" }, "url"],
    ["a missing url", { name: "x" }, "url"],
    ["an unknown field", { url: "https://hooks.example.test/x", secret: "mine" }, "secret"],
    ["events that are not a list", { url: "https://hooks.example.test/x", events: "crawl.failed" }, "events"],
  ])("400 invalid_request for %s, naming the field", async (_, body, field) => {
    const error = expectErrorEnvelope(await create(svc, body), 400, "invalid_request");
    expect(JSON.stringify(error.details)).toContain(field);
  });

  test("malformed JSON is a 400 and a wrong content type a 415", async () => {
    expectErrorEnvelope(await svc.call("POST", "/webhooks", { rawBody: "{", headers: { "content-type": "application/json" } }), 400, "invalid_request");
    expectErrorEnvelope(await svc.call("POST", "/webhooks", { rawBody: "url=x", headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
  });
});

describe("POST /webhooks/{id}/test", () => {
  test("delivers a signed webhook.test and reports it", async () => {
    const created = (await create(open, { url: receiver.ipUrl("/test-ok") })).json.data;
    receiver.useSecret(created.secret);
    const res = await open.call("POST", `/webhooks/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(Number.isInteger(res.json.data.duration_ms)).toBe(true);
    const request = receiver.requests.at(-1)!;
    expect(request.verified).toBe(true);
    expect(request.headers["x-service-event"]).toBe("webhook.test");
    const body = JSON.parse(request.rawBody.toString());
    expect(body).toMatchObject({ id: request.headers["x-service-delivery"], event: "webhook.test", data: { webhook_id: created.id } });
    // A test is not a queued delivery.
    expect((await open.call("GET", `/webhooks/${created.id}/deliveries`)).json.meta.total).toBe(0);
  });

  test("reports an error status, a redirect and a dead endpoint honestly", async () => {
    const created = (await create(open, { url: receiver.ipUrl("/test-bad") })).json.data;
    receiver.useSecret(created.secret);
    receiver.script({ status: 500 }, { status: 302, location: "/elsewhere" });
    const failed = (await open.call("POST", `/webhooks/${created.id}/test`)).json.data;
    expect(failed).toMatchObject({ delivered: false, status_code: 500 });
    expect(failed.error).toEqual(expect.any(String));
    const redirected = (await open.call("POST", `/webhooks/${created.id}/test`)).json.data;
    expect(redirected).toMatchObject({ delivered: false, status_code: 302 });
    expect(receiver.requests.some((r) => r.path === "/elsewhere")).toBe(false);

    const placeholder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const deadUrl = `http://127.0.0.1:${placeholder.port}/hook`;
    placeholder.stop(true);
    const dead = (await create(open, { url: deadUrl })).json.data;
    const refused = (await open.call("POST", `/webhooks/${dead.id}/test`)).json.data;
    expect(refused).toMatchObject({ delivered: false, status_code: null });
    expect(refused.error).toMatch(/refused/);
  });
});

describe("ids, scopes and methods", () => {
  const UNKNOWN = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";
  test.each([
    ["DELETE", `/webhooks/${UNKNOWN}`],
    ["DELETE", "/webhooks/not-a-uuid"],
    ["PATCH", `/webhooks/${UNKNOWN}`],
    ["POST", `/webhooks/${UNKNOWN}/test`],
    ["GET", `/webhooks/${UNKNOWN}/deliveries`],
    ["GET", "/webhooks/nope/deliveries"],
    ["POST", `/webhooks/${UNKNOWN}/deliveries/${UNKNOWN}/redeliver`],
  ])("%s %s → 404", async (method, path) => {
    expectErrorEnvelope(await svc.call(method, path, method === "PATCH" ? { body: { active: true } } : {}), 404, "not_found");
  });

  test("an unknown or malformed delivery of a real webhook → 404", async () => {
    const id = (await create(svc, { url: "https://hooks.example.test/d" })).json.data.id;
    expectErrorEnvelope(await svc.call("POST", `/webhooks/${id}/deliveries/${UNKNOWN}/redeliver`), 404, "not_found");
    expectErrorEnvelope(await svc.call("POST", `/webhooks/${id}/deliveries/xyz/redeliver`), 404, "not_found");
  });

  test("paging of deliveries is validated", async () => {
    const id = (await create(svc, { url: "https://hooks.example.test/p" })).json.data.id;
    expectErrorEnvelope(await svc.call("GET", `/webhooks/${id}/deliveries?page=0`), 400, "invalid_request");
    expectErrorEnvelope(await svc.call("GET", `/webhooks/${id}/deliveries?limit=101`), 400, "invalid_request");
  });

  test("no key → 401, missing scope → 403, wrong method → 405", async () => {
    expectErrorEnvelope(await svc.call("GET", "/webhooks", { key: null }), 401, "unauthorized");
    const reader = await svc.keyWith("webhooks:read");
    const writer = await svc.keyWith("webhooks:write");
    expectErrorEnvelope(await svc.call("POST", "/webhooks", { key: reader, body: { url: "https://hooks.example.test/x" } }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("GET", "/webhooks", { key: writer }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("GET", "/webhooks", { key: await svc.keyWith("crawls:read") }), 403, "forbidden");
    const wrong = await svc.call("PUT", "/webhooks");
    expectErrorEnvelope(wrong, 405, "method_not_allowed");
    expect(wrong.headers.get("allow")).toContain("POST");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VERSION } from "../../src/core/version.ts";
import type { AddressPolicy } from "../../src/net/address-policy.ts";
import { deliverOnce, type DeliverOptions, type DeliveryRequest } from "../../src/webhooks/deliver.ts";
import { verifyWebhookSignature } from "../../src/webhooks/verify.ts";
import { LOOPBACK_ONLY } from "../helpers/fetch-options.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { RECEIVER_HOSTNAME, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

// One attempt against a real HTTPS receiver on 127.0.0.1 that checks signatures with its own code.

const SECRET = "whsec_deliver_test_secret";
const resolve = tableResolver({ [RECEIVER_HOSTNAME]: "127.0.0.1" });

let hooks: WebhookReceiver;
beforeAll(async () => {
  hooks = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => hooks.stop());

let sequence = 0;
function request(overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  sequence += 1;
  const deliveryId = `0190f3a4-0000-7000-8000-${String(sequence).padStart(12, "0")}`;
  const body = JSON.stringify({
    id: deliveryId,
    event: "crawl.completed",
    timestamp: "2026-01-01T00:00:00.000Z",
    data: { crawl_id: "c1", domain_name: "example.com", total_links: 3, broken_links: 1, duration_seconds: 2 },
  });
  return { url: hooks.url(), secret: SECRET, event: "crawl.completed", deliveryId, body, ...overrides };
}

function options(overrides: Partial<DeliverOptions> = {}): DeliverOptions {
  return { policy: LOOPBACK_ONLY, resolve, timeoutMs: 2_000, ca: hooks.cert, ...overrides };
}

/** Requests the receiver saw with this delivery id. */
function seen(deliveryId: string) {
  return hooks.requests.filter((entry) => entry.headers["x-service-delivery"] === deliveryId);
}

describe("deliverOnce", () => {
  test("a 2xx is delivered, with every header and a signature the receiver verifies over the exact body", async () => {
    const sent = request();
    const outcome = await deliverOnce(sent, options());

    expect(outcome).toMatchObject({ kind: "delivered", statusCode: 200 });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    const [received] = seen(sent.deliveryId);
    expect(received).toBeDefined();
    expect(received!.method).toBe("POST");
    expect(received!.path).toBe("/hook");
    expect(received!.verified).toBe(true);
    expect(received!.rawBody.toString("utf8")).toBe(sent.body);
    expect(received!.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": `linkpatrol/${VERSION}`,
      "x-service-event": "crawl.completed",
      "x-service-delivery": sent.deliveryId,
      "content-length": String(Buffer.byteLength(sent.body)),
      host: `${RECEIVER_HOSTNAME}:${hooks.port}`,
    });
    expect(received!.headers["x-service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  test("each attempt is signed afresh with its own t, each valid for its own time", async () => {
    const sent = request();
    const now = Math.floor(Date.now() / 1000);
    const first = await deliverOnce(sent, options({ nowSeconds: () => now - 120 }));
    const second = await deliverOnce(sent, options({ nowSeconds: () => now + 60 }));

    expect(first.kind).toBe("delivered");
    expect(second.kind).toBe("delivered");
    const [a, b] = seen(sent.deliveryId);
    expect(a!.signedAt).toBe(now - 120);
    expect(b!.signedAt).toBe(now + 60);
    expect(a!.headers["x-service-signature"]).not.toBe(b!.headers["x-service-signature"]);
    expect(a!.headers["x-service-delivery"]).toBe(b!.headers["x-service-delivery"]);
    for (const entry of [a!, b!]) {
      expect(entry.verified).toBe(true);
      expect(verifyWebhookSignature(SECRET, entry.headers["x-service-signature"], entry.rawBody, entry.signedAt!)).toBe(true);
    }
    // The first signature would no longer pass at the second attempt's time plus the 300 s window.
    expect(verifyWebhookSignature(SECRET, a!.headers["x-service-signature"], a!.rawBody, now + 200)).toBe(false);
  });

  test("a signature from a stale clock is refused by the receiver with 400 and reported as failed", async () => {
    const sent = request();
    const outcome = await deliverOnce(sent, options({ nowSeconds: () => Math.floor(Date.now() / 1000) - 301 }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: 400, gone: false, retryAfterMs: null });
    expect(seen(sent.deliveryId)[0]!.verified).toBe(false);
  });

  test("a 500 is failed with its status code and the receiver's words", async () => {
    hooks.script({ status: 500, body: "database down" });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({
      kind: "failed",
      statusCode: 500,
      responseBody: "database down",
      gone: false,
      retryAfterMs: null,
    });
    expect(outcome.kind === "failed" && outcome.error).toContain("500");
  });

  test("no complete answer within the timeout is failed without a status, and does not wait for the receiver", async () => {
    hooks.script({ delayMs: 1_500 });
    const started = performance.now();
    const outcome = await deliverOnce(request(), options({ timeoutMs: 300 }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null, gone: false });
    expect(outcome.kind === "failed" && outcome.error).toContain("timed out");
    expect(outcome.durationMs).toBeLessThan(1_000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("headers in time are not enough: a body still arriving when the timeout ends is failed", async () => {
    hooks.script({ status: 200, body: "ok, received", stallBodyMs: 1_500 });
    const outcome = await deliverOnce(request(), options({ timeoutMs: 300 }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null });
    expect(outcome.kind === "failed" && outcome.error).toContain("timed out");
    expect(outcome.durationMs).toBeLessThan(1_000);
  });

  test("a 3xx is failed and its Location is not visited", async () => {
    hooks.script({ status: 307, location: hooks.url("/elsewhere") });
    const before = hooks.requests.length;
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: 307, gone: false });
    expect(outcome.kind === "failed" && outcome.error).toContain("redirects are not followed");
    await Bun.sleep(50);
    expect(hooks.requests.slice(before).map((entry) => entry.path)).toEqual(["/hook"]);
  });

  test("a 410 is failed and gone", async () => {
    hooks.script({ status: 410 });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: 410, gone: true });
  });

  test("a 429 with Retry-After carries the delay asked for", async () => {
    hooks.script({ status: 429, headers: { "retry-after": "120" } });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: 429, retryAfterMs: 120_000, gone: false });
  });

  test("a 503 with an HTTP-date Retry-After carries the time left until it", async () => {
    const at = new Date(Date.now() + 600_000).toUTCString();
    hooks.script({ status: 503, headers: { "retry-after": at } });
    const outcome = await deliverOnce(request(), options());

    expect(outcome.kind).toBe("failed");
    if (outcome.kind !== "failed") return;
    expect(outcome.retryAfterMs).toBeGreaterThan(590_000);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(600_000);
  });

  test("Retry-After on other statuses is not a request to wait", async () => {
    hooks.script({ status: 500, headers: { "retry-after": "120" } });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: 500, retryAfterMs: null });
  });

  test("a private target the policy forbids is refused before any request is sent", async () => {
    const forbidding: AddressPolicy = { allowPrivateNetworks: false, allowedCidrs: [] };
    const before = hooks.requests.length;
    const outcome = await deliverOnce(request(), options({ policy: forbidding }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null, gone: false });
    expect(outcome.kind === "failed" && outcome.error).toContain("private or reserved address");
    expect(outcome.kind === "failed" && outcome.error).toContain("webhooks.allow_private_targets");
    await Bun.sleep(50);
    expect(hooks.requests.length).toBe(before);
  });

  test("the receiver's answer is kept up to 1 KiB", async () => {
    hooks.script({ status: 200, body: "é".repeat(600) + "x".repeat(5_000) });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "delivered", statusCode: 200 });
    expect(Buffer.byteLength(outcome.responseBody)).toBe(1_024);
    expect(outcome.responseBody).toBe("é".repeat(512));
  });

  test("a character cut by the 1 KiB cap is dropped, not replaced", async () => {
    hooks.script({ status: 500, body: `x${"é".repeat(600)}` });
    const outcome = await deliverOnce(request(), options());

    expect(outcome.responseBody).toBe(`x${"é".repeat(511)}`);
  });

  test("a connection dropped without an answer is failed without a status", async () => {
    hooks.script({ closeConnection: true });
    const outcome = await deliverOnce(request(), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null, gone: false, retryAfterMs: null });
    expect(outcome.kind === "failed" && outcome.error.length).toBeGreaterThan(0);
  });

  test("a certificate the deliverer does not trust is a failed attempt", async () => {
    const outcome = await deliverOnce(request(), options({ ca: undefined }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null });
    expect(outcome.kind === "failed" && outcome.error).toMatch(/TLS/i);
  });

  test("a name that does not resolve is a failed attempt naming DNS", async () => {
    const outcome = await deliverOnce(request({ url: `https://missing.linkpatrol.test:${hooks.port}/hook` }), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null });
    expect(outcome.kind === "failed" && outcome.error).toContain("DNS");
  });

  test("a closed port is a failed attempt naming the refusal", async () => {
    const closed = await startWebhookReceiver({ secret: SECRET, tls: false });
    const url = closed.ipUrl();
    await closed.stop();
    const outcome = await deliverOnce(request({ url }), options());

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null });
    expect(outcome.kind === "failed" && outcome.error).toContain("refused");
  });

  test("the certificate also names 127.0.0.1, and plain HTTP works when the caller allows it", async () => {
    const plain = await startWebhookReceiver({ secret: SECRET, tls: false });
    try {
      const overIp = await deliverOnce(request({ url: hooks.ipUrl() }), options());
      const overHttp = await deliverOnce(request({ url: plain.url() }), options());

      expect(overIp).toMatchObject({ kind: "delivered", statusCode: 200 });
      expect(overHttp).toMatchObject({ kind: "delivered", statusCode: 200 });
      expect(plain.requests[0]!.verified).toBe(true);
    } finally {
      await plain.stop();
    }
  });

  test("a caller's abort ends the attempt as failed, not as a timeout", async () => {
    hooks.script({ delayMs: 1_500 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const outcome = await deliverOnce(request(), options({ signal: controller.signal }));

    expect(outcome).toMatchObject({ kind: "failed", statusCode: null });
    expect(outcome.kind === "failed" && outcome.error).toContain("cancelled");
  });

  test("the receiver's waitFor is bounded", async () => {
    await expect(hooks.waitFor(() => false, 50)).rejects.toThrow("within 50 ms");
  });
});

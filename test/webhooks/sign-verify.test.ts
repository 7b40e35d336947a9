import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { signatureHeader } from "../../src/webhooks/sign.ts";
import { verifyWebhookSignature } from "../../src/webhooks/verify.ts";

// The two halves of the scheme are checked against digests computed here, independently, with node:crypto:
// HMAC-SHA256(secret, "<t>.<raw body>") in lowercase hex.

const SECRET = "whsec_test_0123456789abcdef";
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const BODY = '{"id":"3f0c","event":"crawl.completed","timestamp":"2026-01-01T00:00:00.000Z","data":{"ok":"grüße"}}';

function digest(secret: string, t: number, body: string | Buffer): string {
  return createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), typeof body === "string" ? Buffer.from(body) : body]))
    .digest("hex");
}

describe("signatureHeader", () => {
  test("is t=<unix>,v1=<lowercase hex HMAC-SHA256 of '<t>.<body>'>", () => {
    expect(signatureHeader(SECRET, BODY, T)).toBe(`t=${T},v1=${digest(SECRET, T, BODY)}`);
  });

  test("fixed vectors, computed once with the openssl CLI", () => {
    // printf '%s' '0.{}' | openssl dgst -sha256 -hmac secret
    expect(signatureHeader("secret", "{}", 0)).toBe("t=0,v1=4bbe8d39de1ffea42cffafb4727e02f761bef8ed2886b51575ce417d542e918f");
    // printf '%s' '1767225600.{"a":1}' | openssl dgst -sha256 -hmac whsec_test_0123456789abcdef
    expect(signatureHeader(SECRET, '{"a":1}', T)).toBe("t=1767225600,v1=edbeb20e4a41fbcaa5a2a66d054bb581bfed45895f72f7793f8afca061c088ec");
  });

  test("the same body at another time signs differently", () => {
    expect(signatureHeader(SECRET, BODY, T)).not.toBe(signatureHeader(SECRET, BODY, T + 1));
  });

  test("refuses a time that is not whole unix seconds", () => {
    expect(() => signatureHeader(SECRET, BODY, Date.now() / 1000 + 0.5)).toThrow(RangeError);
    expect(() => signatureHeader(SECRET, BODY, -1)).toThrow(RangeError);
  });
});

describe("verifyWebhookSignature", () => {
  const header = `t=${T},v1=${digest(SECRET, T, BODY)}`;

  test("accepts our own signature, on a string or on the raw bytes", () => {
    expect(verifyWebhookSignature(SECRET, signatureHeader(SECRET, BODY, T), BODY, T)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, new TextEncoder().encode(BODY), T)).toBe(true);
  });

  test("accepts a clock difference of exactly 300 s either way, refuses 301 s", () => {
    expect(verifyWebhookSignature(SECRET, header, BODY, T + 300)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, BODY, T - 300)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, BODY, T + 301)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, BODY, T - 301)).toBe(false);
  });

  test("defaults to the system clock", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(SECRET, signatureHeader(SECRET, BODY, now), BODY)).toBe(true);
    expect(verifyWebhookSignature(SECRET, signatureHeader(SECRET, BODY, now - 3_600), BODY)).toBe(false);
  });

  test("refuses a tampered body, a re-serialised body and another secret", () => {
    expect(verifyWebhookSignature(SECRET, header, BODY.replace("completed", "failed"), T)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, JSON.stringify(JSON.parse(BODY), null, 1), T)).toBe(false);
    expect(verifyWebhookSignature(`${SECRET}x`, header, BODY, T)).toBe(false);
  });

  test("refuses a signature whose t was changed after signing", () => {
    const moved = header.replace(`t=${T}`, `t=${T + 10}`);
    expect(verifyWebhookSignature(SECRET, moved, BODY, T)).toBe(false);
  });

  test("accepts when any of several v1 entries matches, and ignores unknown entries", () => {
    const wrong = digest("old-secret", T, BODY);
    expect(verifyWebhookSignature(SECRET, `t=${T},v1=${wrong},v1=${digest(SECRET, T, BODY)}`, BODY, T)).toBe(true);
    expect(verifyWebhookSignature(SECRET, `t=${T},v1=${digest(SECRET, T, BODY)},v1=${wrong}`, BODY, T)).toBe(true);
    expect(verifyWebhookSignature(SECRET, `t=${T},v1=${wrong},v1=${wrong}`, BODY, T)).toBe(false);
    expect(verifyWebhookSignature(SECRET, `v2=abc, t=${T}, v1=${digest(SECRET, T, BODY)}`, BODY, T)).toBe(true);
  });

  test.each([
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
    ["no t", `v1=${"0".repeat(64)}`],
    ["no v1", `t=${T}`],
    ["two t", `t=${T},t=${T},v1=${"0".repeat(64)}`],
    ["t not a number", `t=abc,v1=${"0".repeat(64)}`],
    ["negative t", `t=-5,v1=${"0".repeat(64)}`],
    ["t with fraction", `t=${T}.5,v1=${"0".repeat(64)}`],
    ["short digest", `t=${T},v1=abcd`],
    ["digest not hex", `t=${T},v1=${"z".repeat(64)}`],
    ["part without =", `t=${T},v1`],
    ["garbage", "\u0000\uffff,,,==="],
    ["huge", `t=${T},${"v1=ab,".repeat(2_000)}`],
  ])("a %s header is refused without throwing", (_name, bad) => {
    expect(verifyWebhookSignature(SECRET, bad, BODY, T)).toBe(false);
  });

  test("an empty secret or a body of the wrong type is refused without throwing", () => {
    expect(verifyWebhookSignature("", signatureHeader("", BODY, T), BODY, T)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, 42 as unknown as string, T)).toBe(false);
  });
});

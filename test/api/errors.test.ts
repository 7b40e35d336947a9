import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ server: { max_request_body_bytes: 2048 } });
});
afterAll(() => svc.stop());

describe("error envelope for requests that match no operation", () => {
  test("unknown route: JSON 404", async () => {
    expectErrorEnvelope(await svc.call("GET", "/nothing-here"), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", "/nothing-here", { root: true }), 404, "not_found");
  });

  test("a trailing slash is another path: 404, not 405", async () => {
    expectErrorEnvelope(await svc.call("GET", "/domains/"), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", "/healthz/", { root: true }), 404, "not_found");
  });

  test("known path, wrong method: 405 with Allow", async () => {
    const res = await svc.call("PUT", "/domains");
    expectErrorEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    const item = await svc.call("POST", "/domains/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f");
    expectErrorEnvelope(item, 405, "method_not_allowed");
    expect(item.headers.get("allow")).toBe("DELETE, GET, HEAD, PATCH");
  });
});

describe("error envelope for bad bodies", () => {
  test("malformed JSON: 400 invalid_request", async () => {
    const res = await svc.call("POST", "/domains", { rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    const error = expectErrorEnvelope(res, 400, "invalid_request");
    expect(error.details).toEqual([{ field: "(body)", message: expect.stringContaining("JSON") }]);
  });

  test("a body that is not an object: 400", async () => {
    expectErrorEnvelope(await svc.call("POST", "/domains", { body: ["a"] }), 400, "invalid_request");
    expectErrorEnvelope(await svc.call("POST", "/domains", { body: null }), 400, "invalid_request");
  });

  test("wrong types: 400 with {field, message} details", async () => {
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name: 42 } }), 400, "invalid_request");
    expect(error.details).toEqual([{ field: "name", message: expect.any(String) }]);
  });

  test("missing required field: 400 naming it", async () => {
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: {} }), 400, "invalid_request");
    expect(error.details?.map((d) => d.field)).toEqual(["name"]);
  });

  test("unknown fields: 400 naming each", async () => {
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name: "a.example", nmae: "x" } }), 400, "invalid_request");
    expect(error.details).toEqual([{ field: "nmae", message: "unknown field" }]);
  });

  test("no body at all: 400 or 415, always the envelope", async () => {
    const res = await svc.call("POST", "/domains");
    expect([400, 415]).toContain(res.status);
    expect(res.json.error.code).toBe(res.status === 400 ? "invalid_request" : "unsupported_media_type");
  });

  test("a non-JSON content type: 415 unsupported_media_type", async () => {
    const res = await svc.call("POST", "/domains", { rawBody: "name=a.example", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectErrorEnvelope(res, 415, "unsupported_media_type");
  });

  test("a body over server.max_request_body_bytes: 413 payload_too_large", async () => {
    const res = await svc.call("POST", "/domains", { body: { name: "x".repeat(5000) } });
    expectErrorEnvelope(res, 413, "payload_too_large");
  });
});

describe("responses never leak internals", () => {
  test("every error carries a request id, and a caller's id is echoed", async () => {
    const res = await svc.call("GET", "/domains/nope", { headers: { "x-request-id": "trace-123" } });
    expect(res.headers.get("x-request-id")).toBe("trace-123");
    const generated = await svc.call("GET", "/domains/nope", { headers: { "x-request-id": "bad id with spaces" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

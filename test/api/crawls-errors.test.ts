import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * Every way a crawl request can be refused: bad bodies and query values (400 naming the field), unknown or
 * malformed ids (404), credentials (401), scopes (403), methods (405). The one crawl these tests need points at
 * a loopback port where nothing listens; whether it stays pending or ends does not matter here.
 */

const UNKNOWN_ID = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";
const MALFORMED_IDS = ["nope", "123", "0190b6f27a3e7c4d9e1f2a3b4c5d6e7f", `${UNKNOWN_ID}0`, "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7g"];

let svc: TestService;
let domainId: string;
let crawlId: string;

beforeAll(async () => {
  svc = await startTestService({ server: { max_request_body_bytes: 2048 } });
  domainId = (await svc.runtime.domains.add({ name: "127.0.0.1:1" }, true)).id;
  const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId } });
  if (res.status !== 201) throw new Error(`POST /crawls: ${res.status} ${res.text}`);
  crawlId = res.json.data.id;
});
afterAll(() => svc.stop());

/** Posts `body` to /crawls and expects 400 invalid_request; returns the details. */
async function badBody(body: unknown) {
  const error = expectErrorEnvelope(await svc.call("POST", "/crawls", { body }), 400, "invalid_request");
  for (const detail of error.details ?? []) expect(detail).toEqual({ field: expect.any(String), message: expect.any(String) });
  return error.details ?? [];
}

describe("POST /crawls: bad bodies are 400 invalid_request with {field, message}", () => {
  test("malformed JSON", async () => {
    const res = await svc.call("POST", "/crawls", { rawBody: '{"domain_id": ', headers: { "content-type": "application/json" } });
    const error = expectErrorEnvelope(res, 400, "invalid_request");
    expect(error.details).toEqual([{ field: "(body)", message: expect.stringContaining("JSON") }]);
  });

  test.each([[["a"]], [null], ["domain"], [42]])("a body that is not an object: %j", async (body) => {
    expect((await badBody(body)).length).toBeGreaterThan(0);
  });

  test("domain_id missing", async () => {
    expect((await badBody({ options: { scan_images: true } })).map((d) => d.field)).toEqual(["domain_id"]);
  });

  test.each([[42], [null], [true], [{}], [[UNKNOWN_ID]]])("domain_id of the wrong type: %j", async (domain_id) => {
    expect((await badBody({ domain_id })).map((d) => d.field)).toEqual(["domain_id"]);
  });

  test.each(["abc", "", ...MALFORMED_IDS.slice(1), ` ${UNKNOWN_ID}`, `{${UNKNOWN_ID}}`])(
    "a domain_id that is not a UUID (%p): 400, not 404",
    async (domain_id) => {
      expect((await badBody({ domain_id })).map((d) => d.field)).toEqual(["domain_id"]);
    },
  );

  test.each([
    [{ options: "yes" }, "options"],
    [{ options: null }, "options"],
    [{ options: [] }, "options"],
    [{ options: { scan_images: "true" } }, "options.scan_images"],
    [{ options: { follow_external: 1 } }, "options.follow_external"],
    [{ options: { scan_scripts: null } }, "options.scan_scripts"],
  ])("options of the wrong type: %j (names %s)", async (body, field) => {
    expect((await badBody({ domain_id: domainId, ...body })).map((d) => d.field)).toEqual([field]);
  });

  test("an unknown option is named, not ignored", async () => {
    expect(await badBody({ domain_id: domainId, options: { scan_images: true, scan_video: true } })).toEqual([
      { field: "options.scan_video", message: "unknown field" },
    ]);
  });

  test("an unknown top-level field is named, not ignored", async () => {
    expect(await badBody({ domain_id: domainId, depth: 3 })).toEqual([{ field: "depth", message: "unknown field" }]);
  });

  test("every problem is listed at once", async () => {
    const fields = (await badBody({ domain_id: "x", options: { scan_images: 1, nope: true }, extra: 1 })).map((d) => d.field).sort();
    expect(fields).toEqual(["domain_id", "extra", "options.nope", "options.scan_images"]);
  });

  test("a non-JSON content type: 415; no body: 400 or 415; too large: 413", async () => {
    const form = await svc.call("POST", "/crawls", { rawBody: `domain_id=${domainId}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectErrorEnvelope(form, 415, "unsupported_media_type");
    const empty = await svc.call("POST", "/crawls");
    expect([400, 415]).toContain(empty.status);
    expect(empty.json.error.code).toBe(empty.status === 400 ? "invalid_request" : "unsupported_media_type");
    expectErrorEnvelope(await svc.call("POST", "/crawls", { body: { domain_id: "x".repeat(5000) } }), 413, "payload_too_large");
  });
});

describe("bad query values are 400 invalid_request naming the parameter", () => {
  const PAGING = ["limit=0", "limit=101", "limit=abc", "limit=1.5", "limit=1e2", "limit=0x10", "limit=-1", "limit=", "page=0", "page=-1", "page=x", "page="];

  async function expectBadQuery(path: string, query: string) {
    const error = expectErrorEnvelope(await svc.call("GET", `${path}?${query}`), 400, "invalid_request");
    expect(error.details?.map((d) => d.field)).toEqual([query.split("=")[0]]);
  }

  test.each([
    ...PAGING,
    "status=done",
    "status=PENDING",
    "status=",
    "status=pending,failed",
    "domain_id=abc",
    "domain_id=",
    "domain_id=0190b6f27a3e7c4d9e1f2a3b4c5d6e7f",
    `domain_id=${UNKNOWN_ID}x`,
  ])("GET /crawls?%s", async (query) => {
    await expectBadQuery("/crawls", query);
  });

  test("a parameter given twice: 400", async () => {
    expectErrorEnvelope(await svc.call("GET", "/crawls?status=pending&status=failed"), 400, "invalid_request");
    expectErrorEnvelope(await svc.call("GET", `/crawls/${crawlId}/links?is_broken=true&is_broken=false`), 400, "invalid_request");
  });

  test.each([
    ...PAGING,
    "status_code=abc",
    "status_code=-1",
    "status_code=1000",
    "status_code=2.5",
    "status_code=",
    "status_code=0x1f",
    "status_code=404%20",
    "is_broken=yes",
    "is_broken=1",
    "is_broken=0",
    "is_broken=TRUE",
    "is_broken=False",
    "is_broken=",
  ])("GET /crawls/{id}/links?%s", async (query) => {
    await expectBadQuery(`/crawls/${crawlId}/links`, query);
  });

  test.each(PAGING)("GET /crawls/{id}/broken?%s", async (query) => {
    await expectBadQuery(`/crawls/${crawlId}/broken`, query);
  });

  test("the bounds themselves are accepted", async () => {
    expect((await svc.call("GET", "/crawls?limit=1&page=1")).status).toBe(200);
    expect((await svc.call("GET", "/crawls?limit=100")).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}/links?status_code=0&limit=100`)).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}/links?status_code=999&is_broken=false`)).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}/broken?limit=100&page=7`)).status).toBe(200);
  });
});

describe("unknown and malformed crawl ids are 404 not_found on every /crawls/{id} route", () => {
  const ROUTES = [
    ["GET", ""],
    ["GET", "/links"],
    ["GET", "/broken"],
    ["POST", "/cancel"],
  ] as const;

  test.each(ROUTES)("%s /crawls/{unknown}%s", async (method, suffix) => {
    const error = expectErrorEnvelope(await svc.call(method, `/crawls/${UNKNOWN_ID}${suffix}`), 404, "not_found");
    expect(error.message).toContain(UNKNOWN_ID);
  });

  test.each(ROUTES)("%s /crawls/{malformed}%s", async (method, suffix) => {
    for (const id of MALFORMED_IDS) expectErrorEnvelope(await svc.call(method, `/crawls/${id}${suffix}`), 404, "not_found");
  });

  test("a domain's id is not a crawl's id", async () => {
    expectErrorEnvelope(await svc.call("GET", `/crawls/${domainId}`), 404, "not_found");
  });
});

describe("credentials, scopes and methods", () => {
  const OPERATIONS = [
    ["POST", "/crawls"],
    ["GET", "/crawls"],
    ["GET", `/crawls/${UNKNOWN_ID}`],
    ["GET", `/crawls/${UNKNOWN_ID}/links`],
    ["GET", `/crawls/${UNKNOWN_ID}/broken`],
    ["POST", `/crawls/${UNKNOWN_ID}/cancel`],
  ] as const;

  test.each(OPERATIONS)("no key: %s %s is 401 with WWW-Authenticate", async (method, path) => {
    const res = await svc.call(method, path, { key: null, body: method === "POST" ? { domain_id: domainId } : undefined });
    expectErrorEnvelope(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("a revoked or made-up key: 401", async () => {
    expectErrorEnvelope(await svc.call("GET", "/crawls", { key: `lp_${"x".repeat(40)}` }), 401, "unauthorized");
  });

  test("credentials are checked before query values", async () => {
    expectErrorEnvelope(await svc.call("GET", "/crawls?limit=0", { key: null }), 401, "unauthorized");
  });

  test("crawls:read may read but not start or cancel: 403 naming crawls:write", async () => {
    const reader = await svc.keyWith("crawls:read");
    expect((await svc.call("GET", "/crawls", { key: reader })).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}`, { key: reader })).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}/links`, { key: reader })).status).toBe(200);
    expect((await svc.call("GET", `/crawls/${crawlId}/broken`, { key: reader })).status).toBe(200);
    const start = await svc.call("POST", "/crawls", { key: reader, body: { domain_id: domainId } });
    expect(expectErrorEnvelope(start, 403, "forbidden").message).toContain("crawls:write");
    const cancel = await svc.call("POST", `/crawls/${crawlId}/cancel`, { key: reader });
    expect(expectErrorEnvelope(cancel, 403, "forbidden").message).toContain("crawls:write");
  });

  test("crawls:write alone may not read: 403 naming crawls:read", async () => {
    const writer = await svc.keyWith("crawls:write");
    for (const path of ["/crawls", `/crawls/${crawlId}`, `/crawls/${crawlId}/links`, `/crawls/${crawlId}/broken`]) {
      const res = await svc.call("GET", path, { key: writer });
      expect(expectErrorEnvelope(res, 403, "forbidden").message).toContain("crawls:read");
    }
  });

  test("crawls:write may start a crawl", async () => {
    const writer = await svc.keyWith("crawls:write");
    const domain = await svc.runtime.domains.add({ name: "127.0.0.1:2" }, true);
    expect((await svc.call("POST", "/crawls", { key: writer, body: { domain_id: domain.id } })).status).toBe(201);
  });

  test.each(OPERATIONS)("a key with only domain and webhook scopes: %s %s is 403", async (method, path) => {
    const other = await svc.keyWith("domains:read", "domains:write", "webhooks:read", "webhooks:write");
    const res = await svc.call(method, path, { key: other, body: method === "POST" ? { domain_id: domainId } : undefined });
    expectErrorEnvelope(res, 403, "forbidden");
  });

  test("a key without the scope learns nothing about ids or bodies: 403 before 400 or 404", async () => {
    const reader = await svc.keyWith("crawls:read");
    expectErrorEnvelope(await svc.call("POST", "/crawls", { key: reader, body: { domain_id: "x" } }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("POST", `/crawls/${UNKNOWN_ID}/cancel`, { key: reader }), 403, "forbidden");
  });

  test.each([
    ["PUT", "/crawls", "GET, HEAD, POST"],
    ["DELETE", "/crawls", "GET, HEAD, POST"],
    ["DELETE", `/crawls/${UNKNOWN_ID}`, "GET, HEAD"],
    ["PATCH", `/crawls/${UNKNOWN_ID}`, "GET, HEAD"],
    ["POST", `/crawls/${UNKNOWN_ID}`, "GET, HEAD"],
    ["POST", `/crawls/${UNKNOWN_ID}/links`, "GET, HEAD"],
    ["DELETE", `/crawls/${UNKNOWN_ID}/broken`, "GET, HEAD"],
    ["GET", `/crawls/${UNKNOWN_ID}/cancel`, "POST"],
  ])("%s %s: 405 with Allow %p", async (method, path, allow) => {
    const res = await svc.call(method, path);
    expectErrorEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe(allow);
  });

  test("unknown sub-resources and a trailing slash: 404", async () => {
    expectErrorEnvelope(await svc.call("GET", "/crawls/"), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", `/crawls/${crawlId}/pages`), 404, "not_found");
    expectErrorEnvelope(await svc.call("POST", `/crawls/${crawlId}/restart`), 404, "not_found");
  });
});

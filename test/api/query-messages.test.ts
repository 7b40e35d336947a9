import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * A refused query value says what is wrong with it: out of range, not a whole number, or given more than once,
 * each in its own words (the messages come from the query schemas in http/schemas/common.ts).
 */

let svc: TestService;
let crawlId: string;

beforeAll(async () => {
  svc = await startTestService();
  const domainId = (await svc.runtime.domains.add({ name: "127.0.0.1:1" }, true)).id;
  const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId } });
  if (res.status !== 201) throw new Error(`POST /crawls: ${res.status} ${res.text}`);
  crawlId = res.json.data.id;
});
afterAll(() => svc.stop());

async function details(path: string) {
  return expectErrorEnvelope(await svc.call("GET", path), 400, "invalid_request").details;
}

const PAGING: [string, string, string][] = [
  ["limit=101", "limit", "limit must be between 1 and 100"],
  ["limit=0", "limit", "limit must be between 1 and 100"],
  ["page=0", "page", "page must be 1 or more"],
  ["page=1&page=2", "page", "page is given more than once"],
  ["limit=5&limit=5", "limit", "limit is given more than once"],
  ["limit=abc", "limit", "limit must be a whole number"],
  ["page=1.5", "page", "page must be a whole number"],
];

describe("GET /crawls", () => {
  test.each([
    ...PAGING,
    ["status=pending&status=failed", "status", "status is given more than once"],
    ["domain_id=0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f&domain_id=0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f", "domain_id", "domain_id is given more than once"],
  ])("?%s", async (query, field, message) => {
    expect(await details(`/crawls?${query}`)).toEqual([{ field, message }]);
  });
});

describe("GET /crawls/{id}/links", () => {
  test.each([
    ...PAGING,
    ["status_code=1000", "status_code", "status_code must be between 0 and 999"],
    ["status_code=404&status_code=500", "status_code", "status_code is given more than once"],
    ["is_broken=true&is_broken=false", "is_broken", "is_broken is given more than once"],
  ])("?%s", async (query, field, message) => {
    expect(await details(`/crawls/${crawlId}/links?${query}`)).toEqual([{ field, message }]);
  });

  test("two bad parameters: one message each", async () => {
    expect(await details(`/crawls/${crawlId}/links?page=0&limit=101`)).toEqual([
      { field: "page", message: "page must be 1 or more" },
      { field: "limit", message: "limit must be between 1 and 100" },
    ]);
  });
});

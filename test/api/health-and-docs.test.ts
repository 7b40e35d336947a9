import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import pkg from "../../package.json" with { type: "json" };
import { startTestService, type TestService } from "../helpers/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

describe("/healthz", () => {
  test("answers without a key", async () => {
    const res = await svc.call("GET", "/healthz", { root: true, key: null });
    expect(res.status).toBe(200);
    // No cluster.node_name: the node is named by the machine's host name.
    expect(res.json).toEqual({ status: "ok", version: pkg.version, node: hostname(), store: "sqlite" });
    expect(res.headers.get("ratelimit-limit")).not.toBeNull();
  });

  test("ignores a bad key (it needs none)", async () => {
    expect((await svc.call("GET", "/healthz", { root: true, key: "garbage" })).status).toBe(200);
  });
});

describe("OpenAPI document", () => {
  test("is OpenAPI 3.1 with every domain, crawl, webhook and channel operation, served without a key", async () => {
    const res = await svc.call("GET", "/openapi.json", { key: null });
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(pkg.version);
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/healthz",
      "/metrics",
      "/v1/channels",
      "/v1/channels/{id}",
      "/v1/channels/{id}/deliveries",
      "/v1/channels/{id}/deliveries/{delivery_id}/redeliver",
      "/v1/channels/{id}/test",
      "/v1/crawls",
      "/v1/crawls/{id}",
      "/v1/crawls/{id}/broken",
      "/v1/crawls/{id}/cancel",
      "/v1/crawls/{id}/changes",
      "/v1/crawls/{id}/links",
      "/v1/crawls/{id}/orphans",
      "/v1/domains",
      "/v1/domains/{id}",
      "/v1/domains/{id}/verify",
      "/v1/webhooks",
      "/v1/webhooks/{id}",
      "/v1/webhooks/{id}/deliveries",
      "/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
      "/v1/webhooks/{id}/test",
    ]);
    expect(Object.keys(doc.paths["/v1/domains/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [path, item] of Object.entries<Record<string, { security?: unknown; tags?: string[] }>>(doc.paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const operation of Object.values(item)) {
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
        expect(operation.tags).toEqual([path.split("/")[2]!]);
      }
    }
    expect(doc.paths["/healthz"].get.security).toBeUndefined();
  });

  test("describes bodies with the same schemas that validate them", async () => {
    const doc = (await svc.call("GET", "/openapi.json", { key: null })).json;
    const create = doc.components.schemas.CreateDomain;
    expect(create.required).toEqual(["name"]);
    expect(create.additionalProperties).toBe(false);
    expect(doc.paths["/v1/domains"].post.responses["201"]).toBeDefined();
    expect(doc.paths["/v1/domains"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["limit", "page"]);
    const limit = doc.paths["/v1/domains"].get.parameters.find((p: { name: string }) => p.name === "limit");
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(doc.components.schemas.Error.properties.error.properties.code.type).toBe("string");
    // Nullable uses of a shared component must not make the component itself nullable.
    expect(doc.components.schemas.CrawlOptions.type).toBe("object");
    expect(doc.components.schemas.Domain.properties.default_options.anyOf).toEqual([{ $ref: "#/components/schemas/CrawlOptions" }, { type: "null" }]);
  });

  test("/docs is a readable HTML page pointing at the document", async () => {
    const res = await svc.call("GET", "/docs", { root: true, key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain('fetch("/v1/openapi.json")');
    expect(res.text).not.toContain("__OPENAPI_URL__");
    expect(res.text).not.toContain("https://cdn");
  });
});

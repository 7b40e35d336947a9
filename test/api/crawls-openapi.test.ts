import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";

/** The crawl operations in /v1/openapi.json: every path, parameter, response and schema, from the validating zod schemas. */

let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService();
  doc = (await svc.call("GET", "/openapi.json", { key: null })).json;
});
afterAll(() => svc.stop());

const ERRORS = ["401", "403", "429", "500"];

/** Status codes documented for an operation. */
function statuses(path: string, method: string): string[] {
  return Object.keys(doc.paths[path][method].responses).sort();
}

function paramNames(path: string, method: string): string[] {
  return doc.paths[path][method].parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort();
}

describe("crawl operations in the OpenAPI document", () => {
  test("every crawl path with its methods, tagged crawls, behind the bearer key", () => {
    const crawlPaths = Object.keys(doc.paths)
      .filter((p) => p.startsWith("/v1/crawls"))
      .sort();
    expect(crawlPaths).toEqual([
      "/v1/crawls",
      "/v1/crawls/{id}",
      "/v1/crawls/{id}/broken",
      "/v1/crawls/{id}/cancel",
      "/v1/crawls/{id}/changes",
      "/v1/crawls/{id}/links",
      "/v1/crawls/{id}/orphans",
    ]);
    expect(Object.keys(doc.paths["/v1/crawls"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/crawls/{id}"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/crawls/{id}/links"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/crawls/{id}/broken"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/crawls/{id}/cancel"])).toEqual(["post"]);
    for (const path of crawlPaths) {
      for (const operation of Object.values<{ tags: string[]; security: unknown }>(doc.paths[path])) {
        expect(operation.tags).toEqual(["crawls"]);
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
      }
    }
  });

  test("every success and error status is documented", () => {
    expect(statuses("/v1/crawls", "post")).toEqual(["201", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/crawls", "get")).toEqual(["200", "400", ...ERRORS].sort());
    expect(statuses("/v1/crawls/{id}", "get")).toEqual(["200", "404", ...ERRORS].sort());
    expect(statuses("/v1/crawls/{id}/links", "get")).toEqual(["200", "400", "404", ...ERRORS].sort());
    expect(statuses("/v1/crawls/{id}/broken", "get")).toEqual(["200", "400", "404", ...ERRORS].sort());
    expect(statuses("/v1/crawls/{id}/orphans", "get")).toEqual(["200", "400", "404", ...ERRORS].sort());
    expect(statuses("/v1/crawls/{id}/cancel", "post")).toEqual(["200", "404", "409", ...ERRORS].sort());
    expect(doc.paths["/v1/crawls"].post.responses["201"].headers.Location).toBeDefined();
    expect(doc.paths["/v1/crawls"].post.responses["409"].description).toContain("crawl_in_progress");
    expect(doc.paths["/v1/crawls/{id}/cancel"].post.responses["409"].description).toContain("conflict");
    expect(doc.paths["/v1/crawls"].post.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
  });

  test("the request body and the query parameters, with their bounds", () => {
    expect(doc.paths["/v1/crawls"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/StartCrawl" });
    const start = doc.components.schemas.StartCrawl;
    expect(start.required).toEqual(["domain_id"]);
    expect(start.additionalProperties).toBe(false);
    expect(start.properties.domain_id).toMatchObject({ type: "string", format: "uuid" });
    expect(start.properties.options).toEqual({ $ref: "#/components/schemas/CrawlOptions" });
    expect(doc.paths["/v1/crawls/{id}/cancel"].post.requestBody).toBeUndefined();

    expect(paramNames("/v1/crawls", "get")).toEqual(["query:domain_id", "query:limit", "query:page", "query:status"]);
    expect(paramNames("/v1/crawls/{id}", "get")).toEqual(["path:id"]);
    expect(paramNames("/v1/crawls/{id}/links", "get")).toEqual(["path:id", "query:is_broken", "query:limit", "query:page", "query:status_code"]);
    expect(paramNames("/v1/crawls/{id}/broken", "get")).toEqual(["path:id", "query:limit", "query:page"]);
    expect(paramNames("/v1/crawls/{id}/cancel", "post")).toEqual(["path:id"]);

    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(param("/v1/crawls", "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(param("/v1/crawls", "page")).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(param("/v1/crawls", "domain_id")).toMatchObject({ type: "string", format: "uuid" });
    expect(param("/v1/crawls", "status").enum ?? doc.components.schemas.CrawlStatus?.enum).toEqual(["pending", "running", "completed", "failed"]);
    expect(param("/v1/crawls/{id}/links", "limit")).toMatchObject({ minimum: 1, maximum: 100 });
    expect(param("/v1/crawls/{id}/links", "status_code")).toMatchObject({ type: "integer", minimum: 0, maximum: 999 });
    expect(param("/v1/crawls/{id}/links", "is_broken")).toMatchObject({ type: "boolean" });
  });

  test("the resources as components, with the spec's fields required", () => {
    const schemas = doc.components.schemas;
    for (const name of ["Crawl", "CrawlSummary", "CrawlDetail", "Link", "BrokenLink", "CrawlOptions", "CrawlList", "LinkList", "BrokenLinkList"]) {
      expect(schemas[name]).toBeDefined();
    }
    expect(schemas.Crawl.required).toEqual(expect.arrayContaining(["id", "domain_id", "status", "created_at"]));
    expect(schemas.CrawlSummary.required).toEqual(expect.arrayContaining(["id", "domain_name", "status", "total_links", "broken_links", "completed_at"]));
    expect(schemas.CrawlDetail.required).toEqual(
      expect.arrayContaining(["id", "domain_name", "status", "total_links", "broken_links", "pages_crawled", "started_at", "completed_at"]),
    );
    expect(schemas.CrawlDetail.properties).toHaveProperty("skipped_links");
    expect(schemas.CrawlDetail.properties).toHaveProperty("truncated");
    expect(schemas.Link.required).toEqual(expect.arrayContaining(["url", "source_url", "status_code", "is_broken", "link_text"]));
    expect(schemas.Link.properties.is_broken.type).toBe("boolean");
    expect(schemas.BrokenLink.required).toEqual(expect.arrayContaining(["url", "source_url", "status_code", "link_text"]));
    expect(schemas.BrokenLink.properties).not.toHaveProperty("is_broken");
    expect(schemas.CrawlList.properties.data.items).toEqual({ $ref: "#/components/schemas/CrawlSummary" });
    expect(schemas.LinkList.properties.meta.required).toEqual(["page", "limit", "total"]);
    expect(schemas.BrokenLinkList.properties.meta.required).toEqual(["page", "limit", "total_broken"]);
    expect(schemas.BrokenLinkList.properties.data.items).toEqual({ $ref: "#/components/schemas/BrokenLink" });
    expect(doc.paths["/v1/crawls/{id}"].get.responses["200"].content["application/json"].schema.properties.data).toEqual({
      $ref: "#/components/schemas/CrawlDetail",
    });
  });
});

import { OpenAPIHono } from "@hono/zod-openapi";
import type { DomainsService } from "../../services/domains.service.ts";
import type { AppEnv } from "../../http/env.ts";
import { dataOf, errorResponses, IdParam, jsonContent, PaginationQuery } from "../../http/schemas/common.ts";
import { DomainSchema } from "../../services/domain-view.ts";
import { CreateDomainBody, DomainListSchema, UpdateDomainBody } from "../../http/schemas/domains.ts";
import { jsonBody, securedRoute } from "../secured-route.ts";
import { validationHook } from "../validation-hook.ts";

/** /domains: handlers only validate, call DomainsService and return JSON. */

const createDomain = securedRoute("domains", "domains:write", {
  method: "post",
  path: "/domains",
  summary: "Register a domain",
  request: { body: jsonBody(CreateDomainBody) },
  responses: { 201: jsonContent(dataOf(DomainSchema), "the new domain with its verification instructions"), ...errorResponses(400, 409, 413, 415, 422) },
});

const listDomains = securedRoute("domains", "domains:read", {
  method: "get",
  path: "/domains",
  summary: "List domains, newest first",
  request: { query: PaginationQuery },
  responses: { 200: jsonContent(DomainListSchema, "one page of domains"), ...errorResponses(400) },
});

const getDomain = securedRoute("domains", "domains:read", {
  method: "get",
  path: "/domains/{id}",
  summary: "Get a domain",
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(DomainSchema), "the domain"), ...errorResponses(404) },
});

const updateDomain = securedRoute("domains", "domains:write", {
  method: "patch",
  path: "/domains/{id}",
  summary: "Change a domain's start page, crawl schedule, default crawl options or ignore rules",
  request: { params: IdParam, body: jsonBody(UpdateDomainBody) },
  responses: { 200: jsonContent(dataOf(DomainSchema), "the updated domain"), ...errorResponses(400, 404, 409, 413, 415, 422) },
});

const deleteDomain = securedRoute("domains", "domains:write", {
  method: "delete",
  path: "/domains/{id}",
  summary: "Remove a domain and its crawls (409 crawl_in_progress while one is pending or running)",
  request: { params: IdParam },
  responses: { 204: { description: "removed" }, ...errorResponses(404, 409) },
});

const verifyDomain = securedRoute("domains", "domains:write", {
  method: "post",
  path: "/domains/{id}/verify",
  summary: "Check the domain's verification methods (DNS TXT, HTTP file, meta tag)",
  request: { params: IdParam },
  responses: {
    200: jsonContent(dataOf(DomainSchema), "verified (by the first method that passed)"),
    ...errorResponses(404, 422),
  },
});

/** The /domains router. */
export function domainsRouter(service: DomainsService) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createDomain, async (c) => c.json({ data: await service.add(c.req.valid("json")) }, 201))
    .openapi(listDomains, async (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = await service.list(page, limit);
      return c.json({ data: items, meta: { page, limit, total } }, 200);
    })
    .openapi(getDomain, async (c) => c.json({ data: await service.get(c.req.valid("param").id) }, 200))
    .openapi(updateDomain, async (c) => c.json({ data: await service.edit(c.req.valid("param").id, c.req.valid("json")) }, 200))
    .openapi(deleteDomain, async (c) => {
      await service.delete(c.req.valid("param").id);
      return c.body(null, 204);
    })
    .openapi(verifyDomain, async (c) => c.json({ data: await service.verify(c.req.valid("param").id) }, 200));
}

import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { DomainsService } from "../../services/domains.service.ts";
import type { AppEnv } from "../env.ts";
import { requireScope } from "../middleware/auth/auth.ts";
import { dataOf, errorResponses, IdParam, jsonContent, PaginationQuery } from "../schemas/common.ts";
import { CreateDomainBody, DomainListSchema, DomainSchema, UpdateDomainBody } from "../schemas/domains.ts";
import { validationHook } from "../validation-hook.ts";

/** /domains: handlers only validate, call DomainsService and return JSON. */

const tags = ["domains"];
const security = [{ bearerAuth: [] }];
const jsonBody = <T extends typeof CreateDomainBody | typeof UpdateDomainBody>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const createDomain = createRoute({
  method: "post",
  path: "/domains",
  tags,
  security,
  summary: "Register a domain",
  middleware: [requireScope("domains:write")] as const,
  request: { body: jsonBody(CreateDomainBody) },
  responses: { 201: jsonContent(dataOf(DomainSchema), "the new domain with its verification instructions"), ...errorResponses(400, 409, 413, 415, 422) },
});

const listDomains = createRoute({
  method: "get",
  path: "/domains",
  tags,
  security,
  summary: "List domains, newest first",
  middleware: [requireScope("domains:read")] as const,
  request: { query: PaginationQuery },
  responses: { 200: jsonContent(DomainListSchema, "one page of domains"), ...errorResponses(400) },
});

const getDomain = createRoute({
  method: "get",
  path: "/domains/{id}",
  tags,
  security,
  summary: "Get a domain",
  middleware: [requireScope("domains:read")] as const,
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(DomainSchema), "the domain"), ...errorResponses(404) },
});

const updateDomain = createRoute({
  method: "patch",
  path: "/domains/{id}",
  tags,
  security,
  summary: "Set a domain's crawl schedule and default crawl options",
  middleware: [requireScope("domains:write")] as const,
  request: { params: IdParam, body: jsonBody(UpdateDomainBody) },
  responses: { 200: jsonContent(dataOf(DomainSchema), "the updated domain"), ...errorResponses(400, 404, 413, 415) },
});

const deleteDomain = createRoute({
  method: "delete",
  path: "/domains/{id}",
  tags,
  security,
  summary: "Remove a domain",
  middleware: [requireScope("domains:write")] as const,
  request: { params: IdParam },
  responses: { 204: { description: "removed" }, ...errorResponses(404) },
});

const verifyDomain = createRoute({
  method: "post",
  path: "/domains/{id}/verify",
  tags,
  security,
  summary: "Check the domain's verification methods (DNS TXT, HTTP file, meta tag)",
  middleware: [requireScope("domains:write")] as const,
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
    .openapi(listDomains, (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = service.list(page, limit);
      return c.json({ data: items, meta: { page, limit, total } }, 200);
    })
    .openapi(getDomain, (c) => c.json({ data: service.get(c.req.valid("param").id) }, 200))
    .openapi(updateDomain, (c) => c.json({ data: service.update(c.req.valid("param").id, c.req.valid("json")) }, 200))
    .openapi(deleteDomain, (c) => {
      service.delete(c.req.valid("param").id);
      return c.body(null, 204);
    })
    .openapi(verifyDomain, async (c) => c.json({ data: await service.verify(c.req.valid("param").id) }, 200));
}

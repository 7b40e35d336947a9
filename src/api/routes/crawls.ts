import { OpenAPIHono, z } from "@hono/zod-openapi";
import { CrawlOptionsSchema } from "../../core/crawl-options.ts";
import { CrawlDetailSchema, CrawlSchema } from "../../services/crawl-view.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { AppEnv } from "../../http/env.ts";
import { dataOf, ErrorSchema, errorResponses, IdParam, jsonContent, PaginationQuery } from "../../http/schemas/common.ts";
import {
  BrokenLinkListSchema,
  ChangeListSchema,
  CrawlListQuery,
  CrawlListSchema,
  LinkListQuery,
  LinkListSchema,
  OrphanPageListSchema,
  StartCrawlBody,
} from "../../http/schemas/crawls.ts";
import { jsonBody, securedRoute } from "../secured-route.ts";
import { validationHook } from "../validation-hook.ts";

/** /crawls: handlers only validate, call CrawlsService and return JSON. */

/** The defaults for a body without `options`: every option off. */
const DEFAULT_OPTIONS = CrawlOptionsSchema.parse({});

const startCrawl = securedRoute("crawls", "crawls:write", {
  method: "post",
  path: "/crawls",
  summary: "Start a crawl of a verified domain",
  request: { body: jsonBody(StartCrawlBody) },
  responses: {
    201: {
      ...jsonContent(dataOf(CrawlSchema), "the new crawl, pending"),
      headers: z.object({ Location: z.string().openapi({ example: "/v1/crawls/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f" }) }),
    },
    ...errorResponses(400, 404, 413, 415, 422),
    404: jsonContent(ErrorSchema, "not_found: no domain with this domain_id"),
    409: jsonContent(ErrorSchema, "crawl_in_progress: the domain has a pending or running crawl; details name it"),
    422: jsonContent(ErrorSchema, "domain_not_verified: verify the domain first"),
  },
});

const listCrawls = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls",
  summary: "List crawls, newest first",
  request: { query: CrawlListQuery },
  responses: { 200: jsonContent(CrawlListSchema, "one page of crawls; meta.total counts those matching the filters"), ...errorResponses(400) },
});

const getCrawl = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls/{id}",
  summary: "Get a crawl's details",
  request: { params: IdParam },
  responses: { 200: jsonContent(dataOf(CrawlDetailSchema), "the crawl"), ...errorResponses(404) },
});

const listLinks = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls/{id}/links",
  summary: "The links a crawl recorded, in discovery order",
  request: { params: IdParam, query: LinkListQuery },
  responses: { 200: jsonContent(LinkListSchema, "one page of links; meta.total counts those matching the filters"), ...errorResponses(400, 404) },
});

const listBroken = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls/{id}/broken",
  summary: "Only the broken links of a crawl, in discovery order",
  request: { params: IdParam, query: PaginationQuery },
  responses: { 200: jsonContent(BrokenLinkListSchema, "one page of broken links"), ...errorResponses(400, 404) },
});

const listChanges = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls/{id}/changes",
  summary: "Links newly broken, then links fixed, then links not checked this time, against the previous ended crawl of the domain",
  request: { params: IdParam, query: PaginationQuery },
  responses: { 200: jsonContent(ChangeListSchema, "one page of changes; meta names the crawl compared against"), ...errorResponses(400, 404) },
});

const listOrphans = securedRoute("crawls", "crawls:read", {
  method: "get",
  path: "/crawls/{id}/orphans",
  summary: "Orphan pages: pages the site's sitemaps list that no crawled page links to (crawls with use_sitemap), in discovery order",
  request: { params: IdParam, query: PaginationQuery },
  responses: {
    200: jsonContent(OrphanPageListSchema, "one page of checked orphan pages; meta.total counts them (empty without use_sitemap)"),
    ...errorResponses(400, 404),
  },
});

const cancelCrawl = securedRoute("crawls", "crawls:write", {
  method: "post",
  path: "/crawls/{id}/cancel",
  summary: 'Cancel a pending or running crawl (it ends failed with error "cancelled"); no body',
  request: { params: IdParam },
  responses: {
    200: jsonContent(dataOf(CrawlDetailSchema), "the cancelled crawl; what it found stays readable"),
    ...errorResponses(404, 409),
    409: jsonContent(ErrorSchema, "conflict: the crawl has already ended"),
  },
});

/** The /crawls router; `basePath` prefixes the Location of a new crawl. */
export function crawlsRouter(service: CrawlsService, basePath: string) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(startCrawl, async (c) => {
      const { domain_id, options, full } = c.req.valid("json");
      const crawl = await service.start(domain_id, options ?? DEFAULT_OPTIONS, "api", { full });
      c.header("Location", `${basePath}/crawls/${crawl.id}`);
      return c.json({ data: crawl }, 201);
    })
    .openapi(listCrawls, async (c) => {
      const { page, limit, domain_id, status } = c.req.valid("query");
      const { items, total } = await service.list({ domainId: domain_id, status }, page, limit);
      return c.json({ data: items, meta: { page, limit, total } }, 200);
    })
    .openapi(getCrawl, async (c) => c.json({ data: await service.get(c.req.valid("param").id) }, 200))
    .openapi(listLinks, async (c) => {
      const { page, limit, status_code, is_broken } = c.req.valid("query");
      const result = await service.links(c.req.valid("param").id, { statusCode: status_code, isBroken: is_broken }, page, limit);
      return c.json({ data: result.items, meta: { page, limit, total: result.total } }, 200);
    })
    .openapi(listBroken, async (c) => {
      const { page, limit } = c.req.valid("query");
      const result = await service.broken(c.req.valid("param").id, page, limit);
      return c.json({ data: result.items, meta: { page, limit, total_broken: result.total } }, 200);
    })
    .openapi(listChanges, async (c) => {
      const { page, limit } = c.req.valid("query");
      const result = await service.changes(c.req.valid("param").id, page, limit);
      const meta = {
        page,
        limit,
        total: result.total,
        against_crawl_id: result.againstCrawlId,
        new_broken: result.newBroken,
        fixed: result.fixed,
        not_checked: result.notChecked,
        final: result.final,
      };
      return c.json({ data: result.items, meta }, 200);
    })
    .openapi(listOrphans, async (c) => {
      const { page, limit } = c.req.valid("query");
      const result = await service.orphans(c.req.valid("param").id, page, limit);
      return c.json({ data: result.items, meta: { page, limit, total: result.total } }, 200);
    })
    .openapi(cancelCrawl, async (c) => c.json({ data: await service.cancel(c.req.valid("param").id) }, 200));
}

import { Hono } from "hono";
import { VERSION } from "../../core/version.ts";
import type { AppEnv } from "../../http/env.ts";
import { DOCS_PAGE } from "./docs-page.ts";

/**
 * /docs: a self-contained API reference page (no CDN: appliances often have no internet). And the API's base
 * address itself, which the start-up log names: it answers where the reference is rather than a 404.
 */
export function docsRouter(openapiPath: string, basePath: string) {
  const page = DOCS_PAGE.replaceAll("__OPENAPI_URL__", openapiPath);
  const index = { data: { name: "linkpatrol", version: VERSION, docs: "/docs", openapi: openapiPath } };
  return new Hono<AppEnv>()
    .get("/docs", (c) => c.html(page))
    .get(basePath, (c) => c.json(index))
    .get(`${basePath}/`, (c) => c.json(index));
}

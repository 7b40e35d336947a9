import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { DOCS_PAGE } from "./docs-page.ts";

/** /docs: a self-contained API reference page (no CDN: appliances often have no internet). */
export function docsRouter(openapiPath: string) {
  const page = DOCS_PAGE.replaceAll("__OPENAPI_URL__", openapiPath);
  return new Hono<AppEnv>().get("/docs", (c) => c.html(page));
}

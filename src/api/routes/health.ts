import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { VERSION } from "../../core/version.ts";
import type { AppEnv } from "../../http/env.ts";
import { jsonContent } from "../../http/schemas/common.ts";

/**
 * GET /healthz: liveness for load balancers, monitoring and systemd watchdogs; no auth. It answers 200 only while
 * the store can serve: a store that fails (overwritten, replaced, read-only, its last write failed) is a 503
 * naming the file, since every API call would fail with 500 meanwhile.
 */

const node = z.string().openapi({ description: "the name of the node that answered (cluster.node_name, or its host name)" });
const store = z.enum(["sqlite", "postgres"]).openapi({ description: "the store's engine: the SQLite file (storage.path) or PostgreSQL (storage.url)" });
const HealthSchema = z.object({ status: z.literal("ok"), version: z.string(), node, store }).openapi("Health");
const UnavailableSchema = z
  .object({
    status: z.literal("unavailable"),
    node,
    store,
    reason: z.string().openapi({ description: "what is wrong, naming the store file or the PostgreSQL server and database" }),
  })
  .openapi("Unavailable");

/** What /healthz asks about the store: the problem, or null when it can serve. */
export interface StoreCheck {
  readonly engine: "sqlite" | "postgres";
  problem(): string | null;
}

const health = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["service"],
  summary: "Liveness, version and node name (no authentication)",
  responses: {
    200: jsonContent(HealthSchema, "the service is up and its store can serve"),
    503: jsonContent(UnavailableSchema, "the store cannot serve; the reason names the file and the cause"),
  },
});

/** The health router over `store`'s check, answering as node `node`. */
export function healthRouter(check: StoreCheck, node: string) {
  return new OpenAPIHono<AppEnv>().openapi(health, (c) => {
    const reason = check.problem();
    if (reason !== null) return c.json({ status: "unavailable" as const, node, store: check.engine, reason }, 503);
    return c.json({ status: "ok" as const, version: VERSION, node, store: check.engine }, 200);
  });
}

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { VERSION } from "../../core/version.ts";
import type { AppEnv } from "../env.ts";
import { jsonContent } from "../schemas/common.ts";

/** GET /healthz: liveness for load balancers and systemd watchdogs; no auth. */

const HealthSchema = z.object({ status: z.literal("ok"), version: z.string() }).openapi("Health");

const health = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["service"],
  summary: "Liveness and version (no authentication)",
  responses: { 200: jsonContent(HealthSchema, "the service is up") },
});

/** The health router; `probe` throws when the store is unusable, which makes the check fail with 500. */
export function healthRouter(probe: () => void) {
  return new OpenAPIHono<AppEnv>().openapi(health, (c) => {
    probe();
    return c.json({ status: "ok" as const, version: VERSION }, 200);
  });
}

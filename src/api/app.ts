import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { VERSION } from "../core/version.ts";
import type { CrawlsService } from "../services/crawls.service.ts";
import type { DomainsService } from "../services/domains.service.ts";
import type { KeysService } from "../services/keys.service.ts";
import type { WebhooksService } from "../services/webhooks.service.ts";
import type { ChannelsService } from "../services/channels.service.ts";
import type { AppEnv } from "../http/env.ts";
import { errorResponse } from "./error-envelope.ts";
import { authenticate } from "./middleware/auth/auth.ts";
import { clientAddress } from "../http/client-address.ts";
import type { ForwardedHeader } from "../http/forwarded-chain.ts";
import { type Buckets, rateLimit, RateLimiter } from "../http/rate-limit.ts";
import { requestId } from "./middleware/request-id/request-id.ts";
import { requestHeadLimit } from "./middleware/request-head-limit/request-head-limit.ts";
import { requestLog } from "./middleware/request-log/request-log.ts";
import { requestMetrics } from "./middleware/request-metrics/request-metrics.ts";
import { ResponseCache, responseCache } from "./middleware/response-cache/response-cache.ts";
import { storeVersionToken } from "./middleware/store-version-token.ts";
import { storeGuard, WRITE_METHODS, type StoreFileCheck } from "../http/store-guard.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import { metricsRouter } from "./routes/metrics.ts";
import { methodLookup } from "./route-methods.ts";
import { crawlsRouter } from "./routes/crawls.ts";
import { docsRouter } from "./routes/docs.ts";
import { domainsRouter } from "./routes/domains.ts";
import { healthRouter, type StoreCheck } from "./routes/health.ts";
import { webhooksRouter } from "./routes/webhooks.ts";
import { channelsRouter } from "./routes/channels.ts";

/**
 * The HTTP application: the middleware chain, one router per resource, OpenAPI from the routes' zod schemas, and
 * the single error mapping. Unknown paths answer 404, wrong methods 405, both JSON.
 */

interface AppDeps {
  basePath: string;
  rateLimitPerMinute: number;
  /**
   * Rate-limit buckets shared with the other nodes of a PostgreSQL store (http/shared-buckets.ts), made for a
   * capacity a minute; absent, this process's own (the appliance).
   */
  sharedRateLimits?: (capacity: number) => Buckets;
  /** Reverse proxies whose `forwardedHeader` names the client (server.trusted_proxies). */
  trustedProxies: readonly string[];
  forwardedHeader: ForwardedHeader;
  maxRequestBodyBytes: number;
  keys: KeysService;
  domains: DomainsService;
  crawls: CrawlsService;
  webhooks: WebhooksService;
  channels: ChannelsService;
  /** What /healthz reports about the store; told of every error a request ends with (it keeps the store's own). */
  storeHealth: StoreCheck & { noteFailure(error: unknown): void };
  /** Whether the store's path still names the file opened: writes are refused (503) while it does not. */
  storeFile: StoreFileCheck;
  logger: Logger;
  /** The name this node answers with (/healthz). */
  nodeName: string;
  metrics: ServiceMetrics;
  /** Serve GET /metrics here (for keys with metrics:read); false when it has a listener of its own or is off. */
  metricsOnApi: boolean;
  /** The store's version token (store/store-version.ts): keys and GET answers are kept while it stays the same; null: none kept. */
  storeVersion: (() => string | Promise<string>) | null;
  /**
   * Mounts the web dashboard's routes at / (ui.enabled): given by the composition root (runtime.ts), with the
   * app's rate limiter, which leaves the dashboard's paths to it; null: / answers 404.
   */
  dashboard: ((app: OpenAPIHono<AppEnv>, limiter: RateLimiter) => void) | null;
}

/** Builds the app; its `fetch` serves it. */
export function createApp(deps: AppDeps) {
  const { logger } = deps;
  const app = new OpenAPIHono<AppEnv>();
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "API key: lp_ followed by 40 base62 characters",
  });

  app.use("*", requestId());
  app.use("*", clientAddress({ trustedProxies: deps.trustedProxies, forwardedHeader: deps.forwardedHeader }));
  app.use("*", requestMetrics(deps.metrics));
  app.use("*", requestLog(logger));
  app.use("*", requestHeadLimit());
  if (deps.storeVersion !== null) app.use("*", storeVersionToken(deps.storeVersion));
  app.use("*", authenticate(deps.keys));
  const openapiPath = `${deps.basePath}/openapi.json`;
  const limiter = new RateLimiter({
    requestsPerMinute: deps.rateLimitPerMinute,
    publicPaths: ["/healthz", "/docs", openapiPath],
    shared: deps.sharedRateLimits,
  });
  app.use("*", rateLimit(limiter, deps.dashboard === null ? undefined : isDashboardPath));
  // Only requests that may write are checked: a GET pays nothing.
  app.on(WRITE_METHODS, `${deps.basePath}/*`, storeGuard(deps.storeFile, logger));
  app.use("*", responseCache(new ResponseCache()));
  // Only requests that may carry a body pass through the limit: one middleware less on every GET.
  app.on(
    WRITE_METHODS,
    "*",
    bodyLimit({
      maxSize: deps.maxRequestBodyBytes,
      onError: () => {
        throw new PayloadTooLargeError(`request body larger than ${deps.maxRequestBodyBytes} bytes`);
      },
    }),
  );

  app.route("/", healthRouter(deps.storeHealth, deps.nodeName));
  app.route("/", docsRouter(openapiPath, deps.basePath));
  if (deps.metricsOnApi) app.route("/", metricsRouter(deps.metrics));
  app.route(deps.basePath, domainsRouter(deps.domains));
  app.route(deps.basePath, crawlsRouter(deps.crawls, deps.basePath));
  app.route(deps.basePath, webhooksRouter(deps.webhooks));
  app.route(deps.basePath, channelsRouter(deps.channels));
  deps.dashboard?.(app, limiter);
  app.doc31(openapiPath, {
    openapi: "3.1.0",
    info: {
      title: "linkpatrol API",
      version: VERSION,
      description: 'Self-hosted link checking. Every error body is {"error": {code, message, details?}}.',
    },
  });

  const allowedMethods = methodLookup(app.routes);
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    return errorResponse(c, allowed.length > 0 ? new MethodNotAllowedError(allowed) : new NotFoundError("route", c.req.path), logger);
  });
  app.onError((error, c) => {
    deps.storeHealth.noteFailure(error);
    return errorResponse(c, error, logger);
  });
  return { fetch: app.fetch };
}

export type App = ReturnType<typeof createApp>;

/** The dashboard's paths (ui/dashboard.tsx): `/`, and `/ui/*`, which Hono also matches for `/ui`. */
function isDashboardPath(path: string): boolean {
  return path === "/" || path === "/ui" || path.startsWith("/ui/");
}

/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import { STATUS_OF } from "../api/error-envelope.ts";
import { AppError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { CrawlsService } from "../services/crawls.service.ts";
import type { DomainsService } from "../services/domains.service.ts";
import type { KeysService } from "../services/keys.service.ts";
import type { WebhooksService } from "../services/webhooks.service.ts";
import { assetsRouter } from "./assets.ts";
import { ErrorPage } from "./components/error-page.tsx";
import { dashboardSession, requireCsrf, requireViewer } from "./middleware/dashboard-session.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { renderPage } from "./render.ts";
import { crawlRouter } from "./routes/crawl.tsx";
import { domainRouter } from "./routes/domain.tsx";
import { keysRouter } from "./routes/keys.tsx";
import { overviewRouter } from "./routes/overview.tsx";
import { signInRouter } from "./routes/sign-in.tsx";
import { webhooksRouter } from "./routes/webhooks.tsx";
import { SessionCodec } from "./session.ts";
import type { UiEnv } from "./ui-env.ts";

/**
 * The web dashboard: server-rendered pages at `/` and under `/ui/`, over the same services as the API. Its
 * middleware is scoped to those paths, so the API under its base path never sees a session cookie. Order:
 * security headers (on everything, errors included) → session → sign-in wall → CSRF on POSTs → pages.
 */

export interface DashboardDeps {
  keys: KeysService;
  domains: DomainsService;
  crawls: CrawlsService;
  webhooks: WebhooksService;
  /** Signs session cookies (ui/session-secret.ts). */
  sessionSecret: Uint8Array;
  logger: Logger;
}

const PAGES = ["/", "/ui/*"];

export function dashboardRouter(deps: DashboardDeps): Hono<UiEnv> {
  const codec = new SessionCodec(deps.sessionSecret);
  const dashboard = new Hono<UiEnv>();
  for (const path of PAGES) {
    dashboard.use(path, securityHeaders());
    dashboard.use(path, dashboardSession(deps.keys, codec));
  }
  dashboard.route("/", assetsRouter());
  dashboard.route("/", signInRouter(deps.keys, codec));
  for (const path of PAGES) {
    dashboard.use(path, requireViewer());
    dashboard.use(path, requireCsrf(codec));
  }
  dashboard.route("/", overviewRouter(deps.domains, deps.crawls));
  dashboard.route("/", domainRouter(deps.domains, deps.crawls));
  dashboard.route("/", crawlRouter(deps.crawls, deps.domains));
  dashboard.route("/", webhooksRouter(deps.webhooks));
  dashboard.route("/", keysRouter(deps.keys));
  dashboard.onError((error, c) => {
    const status = error instanceof AppError ? STATUS_OF[error.code] : 500;
    if (status === 500) {
      deps.logger.error("dashboard error", { request_id: c.get("requestId"), error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
    const message = status === 500 ? "internal server error" : error.message;
    if (c.req.path.endsWith(".json")) return c.json({ error: { code: error instanceof AppError ? error.code : "internal", message } }, status);
    return renderPage(c, <ErrorPage viewer={c.get("viewer") ?? null} status={status} message={message} />, status);
  });
  return dashboard;
}

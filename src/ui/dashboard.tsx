/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { RateLimiter } from "../http/rate-limit.ts";
import { storeGuard, type StoreFileCheck } from "../http/store-guard.ts";
import { AppError, RateLimitedError, STATUS_OF, StoreUnavailableError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { CrawlsService } from "../services/crawls.service.ts";
import type { DomainsService } from "../services/domains.service.ts";
import type { KeysService } from "../services/keys.service.ts";
import type { WebhooksService } from "../services/webhooks.service.ts";
import type { ChannelsService } from "../services/channels.service.ts";
import { storeRefusalOf } from "../services/store-refusal.ts";
import { assetsRouter } from "./assets.ts";
import { dashboardRateLimit } from "./middleware/dashboard-rate-limit.ts";
import { dashboardSession, requireCsrf, requireViewer } from "./middleware/dashboard-session.ts";
import { pageLayout } from "./middleware/page-layout.tsx";
import { securityHeaders } from "./middleware/security-headers.ts";
import { ErrorPage, errorTitle } from "./pages/error-page.tsx";
import { crawlRouter } from "./routes/crawl.tsx";
import { domainRouter } from "./routes/domain.tsx";
import { keysRouter } from "./routes/keys.tsx";
import { overviewRouter } from "./routes/overview.tsx";
import { signInRouter } from "./routes/sign-in.tsx";
import { webhooksRouter } from "./routes/webhooks.tsx";
import { channelsRouter } from "./routes/channels.tsx";
import { SessionCodec } from "./session.ts";
import { SignInBackoff, type SignInGate } from "./sign-in-backoff.ts";
import { SignOuts } from "./sign-outs.ts";
import type { UiEnv } from "./ui-env.ts";

/**
 * The web dashboard at `/` and `/ui/`, over the same services as the API. Its middleware is scoped to those paths,
 * so the API never sees a session cookie; every refusal, 429 included, is a dashboard page.
 */

interface DashboardDeps {
  keys: KeysService;
  domains: DomainsService;
  crawls: CrawlsService;
  webhooks: WebhooksService;
  channels: ChannelsService;
  /** Signs session cookies (ui/session-secret.ts). */
  sessionSecret: Uint8Array;
  /** Whether the store's path still names the file opened (http/store-guard.ts). */
  storeFile: StoreFileCheck;
  logger: Logger;
  /** The name of this node, in every page's footer. */
  nodeName: string;
  /** The app's rate limiter (the API's limiter leaves dashboard paths to this router). */
  limiter: RateLimiter;
  /**
   * Where sign-outs are kept (ui/sign-outs.ts): `SignOuts.load(new EndedSessionsRepo(db), shared)` to keep them in the
   * store (`shared` on a PostgreSQL store); absent, in this process's memory only.
   */
  signOuts?: SignOuts;
  /** Where failed sign-ins are counted: SharedSignInBackoff on a PostgreSQL store; absent, this process's memory. */
  signInBackoff?: SignInGate;
}

const PAGES = ["/", "/ui/*"];

export function dashboardRouter(deps: DashboardDeps): Hono<UiEnv> {
  const codec = new SessionCodec(deps.sessionSecret);
  const signOuts = deps.signOuts ?? new SignOuts();
  const dashboard = new Hono<UiEnv>();
  for (const path of PAGES) {
    dashboard.use(path, securityHeaders());
    dashboard.use(path, pageLayout(deps.nodeName));
    dashboard.use(path, dashboardSession(deps.keys, codec, signOuts));
    dashboard.use(path, dashboardRateLimit(deps.limiter));
  }
  dashboard.route("/", assetsRouter());
  dashboard.route("/", signInRouter(deps.keys, codec, deps.signInBackoff ?? new SignInBackoff(), signOuts));
  for (const path of PAGES) {
    dashboard.use(path, requireViewer());
    dashboard.use(path, requireCsrf(codec));
    dashboard.on("POST", path, storeGuard(deps.storeFile, deps.logger));
  }
  dashboard.route("/", overviewRouter(deps.domains, deps.crawls));
  dashboard.route("/", domainRouter(deps.domains, deps.crawls));
  dashboard.route("/", crawlRouter(deps.crawls, deps.domains));
  dashboard.route("/", webhooksRouter(deps.webhooks));
  dashboard.route("/", channelsRouter(deps.channels, deps.domains));
  dashboard.route("/", keysRouter(deps.keys));
  dashboard.onError((thrown, c) => {
    // A write the store refused (full disk, failing disk) is a 503 to retry, not an internal error.
    const error = storeRefusalOf(thrown);
    const status = error instanceof AppError ? STATUS_OF[error.code] : 500;
    if (status === 500) {
      deps.logger.error("dashboard error", {
        request_id: c.get("requestId"),
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
    const message = status === 500 ? "internal server error" : error.message;
    c.status(status);
    if (error instanceof RateLimitedError) {
      // A page even for the progress endpoint: the script waits Retry-After; a person reads why.
      c.header("Retry-After", String(error.retryAfterSeconds));
      return c.render(<ErrorPage status={status} message={`Too many requests; try again in ${error.retryAfterSeconds} s.`} />, { title: errorTitle(status) });
    }
    if (error instanceof StoreUnavailableError) c.header("Retry-After", String(error.retryAfterSeconds));
    if (c.req.path.endsWith(".json")) return c.json({ error: { code: error instanceof AppError ? error.code : "internal", message } }, status);
    return c.render(<ErrorPage status={status} message={message} />, { title: errorTitle(status) });
  });
  return dashboard;
}

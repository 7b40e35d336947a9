import { getPath } from "hono/utils/url";
import { hasScope } from "../core/scopes.ts";
import type { Logger } from "../core/logger.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import type { KeysService } from "../services/keys.service.ts";
import { identifyCaller } from "./middleware/auth/auth.ts";
import { rateLimitHeaders, type RateLimiter } from "./middleware/rate-limit/rate-limit.ts";
import { chooseRequestId, REQUEST_ID_HEADER } from "./middleware/request-id/request-id.ts";
import { MAX_REQUEST_HEAD_BYTES, requestHeadBytes } from "./middleware/request-head-limit/request-head-limit.ts";
import { logRequest } from "./middleware/request-log/request-log.ts";
import { cacheKeyOf, type ResponseCache } from "./middleware/response-cache/response-cache.ts";

/**
 * The fast path for kept answers: a GET whose answer the response cache holds under the store's current version
 * is answered here, before Hono's router and middleware chain, when the caller's key holds the route's scope and
 * has a token left. Everything else (no kept answer, no usable key, a missing scope, no token, HEAD, any error)
 * goes to the app, which answers exactly as it always does. The steps are the chain's own functions (request id,
 * caller, rate limit, metrics, request log), so both paths give the same headers, count the same tokens and
 * record the same metrics and log lines. Polling clients and dashboards mostly ask for kept answers; the chain
 * costs more than the answer itself: the idle service answered GET /v1/domains at 33–36k req/s through it and
 * 54–59k here (bench/README.md, "How the API got from 16–18k to 37–47k req/s").
 */

export type Fetch = (request: Request, server?: unknown) => Response | Promise<Response>;

export interface KeptAnswerSteps {
  cache: ResponseCache;
  keys: KeysService;
  limiter: RateLimiter;
  metrics: ServiceMetrics;
  logger: Logger;
}

/** Wraps the app's `fetch` so kept answers skip the chain. */
export function answerKeptFirst(app: Fetch, steps: KeptAnswerSteps): Fetch {
  const { cache, keys, limiter, metrics, logger } = steps;
  return function fetchKeptFirst(request, server) {
    // An oversized head is the chain's to refuse (431), whatever the cache holds.
    if (request.method !== "GET" || requestHeadBytes(request) > MAX_REQUEST_HEAD_BYTES) return app(request, server);
    const started = performance.now();
    const key = cacheKeyOf(request.url);
    let kept;
    let principal;
    try {
      // The store may fail (closed at a shutdown timeout, an I/O error): the app answers that with its envelope.
      kept = cache.get(key, cache.version());
      if (kept === undefined) return app(request, server);
      principal = identifyCaller(keys, request.headers.get("Authorization")).principal;
    } catch {
      return app(request, server);
    }
    if (principal === null || !hasScope(principal.scopes, kept.scope)) return app(request, server);
    const decision = limiter.takeForKey(principal.keyId);
    if (decision !== null && !decision.allowed) return app(request, server);

    const requestId = chooseRequestId(request.headers.get(REQUEST_ID_HEADER));
    const headers: Record<string, string> = { "Content-Type": kept.contentType, [REQUEST_ID_HEADER]: requestId };
    if (decision !== null) Object.assign(headers, rateLimitHeaders(decision));
    const response = new Response(kept.body, { status: 200, headers });
    const durationMs = performance.now() - started;
    metrics.recordRequest(kept.route, "GET", 200, durationMs / 1000);
    if (logger.enabled("info")) {
      logRequest(logger, { requestId, method: "GET", path: getPath(request), status: 200, durationMs, keyId: principal.keyId });
    }
    return response;
  };
}

import type { Context, Hono } from "hono";
import type { Scope } from "../../core/scopes.ts";
import { showAgain, type Problem } from "../form-problem.ts";
import type { UiEnv, Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";

/** What a target's page shows besides its deliveries. */
export interface TargetExtra<T> {
  notice?: string;
  test?: T;
  error?: Problem;
}

/** The `page` query of a paged listing, within 1..100,000. */
export const pageQuery = (c: Context<UiEnv>): number => Math.max(1, Math.min(100_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));

/**
 * The routes a webhook and a notification channel share under `base` (one outbox, one log): the target's page,
 * a test send shown on it, delete, and redeliver (a refusal shown on the page).
 */
export function deliveryTargetRoutes<T>(
  router: Hono<UiEnv>,
  base: string,
  scopes: { read: Scope; write: Scope },
  service: { test(id: string): Promise<T>; delete(id: string): Promise<void>; redeliver(id: string, deliveryId: string): Promise<unknown> },
  page: (c: Context<UiEnv>, viewer: Viewer, id: string, extra?: TargetExtra<T>) => Response | Promise<Response>,
): void {
  router.get(`${base}/:id`, (c) => page(c, requireUiScope(c, scopes.read), c.req.param("id"), { notice: c.req.query("notice") }));

  router.post(`${base}/:id/test`, async (c) => {
    const viewer = requireUiScope(c, scopes.write);
    const id = c.req.param("id");
    return page(c, viewer, id, { test: await service.test(id) });
  });

  router.post(`${base}/:id/delete`, async (c) => {
    requireUiScope(c, scopes.write);
    await service.delete(c.req.param("id"));
    return c.redirect(`${base}?notice=deleted`, 303);
  });

  router.post(`${base}/:id/deliveries/:delivery/redeliver`, async (c) => {
    const viewer = requireUiScope(c, scopes.write);
    const id = c.req.param("id");
    try {
      await service.redeliver(id, c.req.param("delivery"));
    } catch (error) {
      return showAgain(c, error, "The delivery was not queued again.", (problem) => page(c, viewer, id, { error: problem }));
    }
    return c.redirect(`${base}/${id}?notice=redelivered`, 303);
  });
}

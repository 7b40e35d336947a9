/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../../core/crawl-events.ts";
import type { TestResultView } from "../../services/webhook-view.ts";
import type { WebhooksService } from "../../services/webhooks.service.ts";
import { showAgain } from "../form-problem.ts";
import { DELIVERIES_PER_PAGE, WebhookList, WebhookPage } from "../pages/webhook-pages.tsx";
import type { UiEnv, Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { deliveryTargetRoutes, pageQuery, type TargetExtra } from "./delivery-target.ts";

/**
 * Webhooks: the list and the form to add one (its secret shown once, on the answer to that form, never
 * again); a webhook's page with a test send and its result, the delivery log with every attempt, redeliver
 * and delete.
 */

export function webhooksRouter(webhooks: WebhooksService) {
  const router = new Hono<UiEnv>();

  const head = { title: "Webhooks" };
  const hookPage = async (c: Context<UiEnv>, viewer: Viewer, id: string, extra: TargetExtra<TestResultView> = {}) => {
    const page = pageQuery(c);
    const hook = await webhooks.get(id);
    const deliveries = await webhooks.deliveries(hook.id, page, DELIVERIES_PER_PAGE);
    return c.render(<WebhookPage viewer={viewer} hook={hook} deliveries={deliveries} page={page} {...extra} />, { title: `Webhook ${hook.name ?? hook.url}` });
  };

  router.get("/ui/webhooks", async (c) => {
    const viewer = requireUiScope(c, "webhooks:read");
    return c.render(<WebhookList viewer={viewer} webhooks={(await webhooks.list()).items} notice={c.req.query("notice")} />, head);
  });

  router.post("/ui/webhooks", async (c) => {
    const viewer = requireUiScope(c, "webhooks:write");
    const form = await c.req.parseBody({ all: true });
    const url = typeof form.url === "string" ? form.url.trim() : "";
    const typedName = typeof form.name === "string" ? form.name.trim().slice(0, 200) : "";
    const name = typedName === "" ? null : typedName;
    const picked = ([] as unknown[]).concat(form.events ?? []);
    const events = WEBHOOK_EVENT_KINDS.filter((kind) => picked.includes(kind)) as WebhookEventKind[];
    try {
      const created = await webhooks.create({ url, name, events });
      // The secret is on this answer only: no redirect (it would have to carry it), and never cached.
      c.status(201);
      return c.render(<WebhookList viewer={viewer} webhooks={(await webhooks.list()).items} created={created} />, head);
    } catch (error) {
      const draft = { url: url.slice(0, 2048), name: typedName, events };
      return showAgain(c, error, "The webhook was not added.", async (problem) =>
        c.render(<WebhookList viewer={viewer} webhooks={(await webhooks.list()).items} error={problem} draft={draft} />, head),
      );
    }
  });

  deliveryTargetRoutes(router, "/ui/webhooks", { read: "webhooks:read", write: "webhooks:write" }, webhooks, hookPage);
  return router;
}

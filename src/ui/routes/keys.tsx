/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { KeysService } from "../../services/keys.service.ts";
import { ConfirmPage } from "../components/confirm-page.tsx";
import { KeyList } from "../components/key-pages.tsx";
import { problemOf } from "../form-problem.ts";
import { renderPage } from "../render.ts";
import type { UiEnv } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { Time } from "../components/local-time.tsx";

/**
 * API keys for admins: the list, creating a key with chosen scopes (its secret on the answer to that form only,
 * never again, like a webhook's secret), and revoking one after a confirmation page. Any other key gets 403.
 * Through KeysService, as `linkpatrol keys` does.
 */
export function keysRouter(keys: KeysService) {
  const router = new Hono<UiEnv>();

  router.get("/ui/keys", (c) => {
    const viewer = requireUiScope(c, "admin");
    return renderPage(c, <KeyList viewer={viewer} keys={keys.list()} notice={c.req.query("notice")} />);
  });

  router.post("/ui/keys", async (c) => {
    const viewer = requireUiScope(c, "admin");
    const form = await c.req.parseBody({ all: true });
    const name = typeof form.name === "string" ? form.name.trim().slice(0, 200) : "";
    const scopes = ([] as unknown[]).concat(form.scopes ?? []).filter((scope): scope is string => typeof scope === "string").slice(0, 20);
    try {
      const created = keys.create(name, scopes);
      // The secret is on this answer only: no redirect (it would have to carry it), and pages are never cached.
      return renderPage(c, <KeyList viewer={viewer} keys={keys.list()} created={created} />, 201);
    } catch (error) {
      const { problem, status } = problemOf(error, "The key was not created.");
      return renderPage(c, <KeyList viewer={viewer} keys={keys.list()} error={problem} draft={{ name, scopes }} />, status);
    }
  });

  router.get("/ui/keys/:id/revoke", (c) => {
    const viewer = requireUiScope(c, "admin");
    const key = keys.get(c.req.param("id"));
    const own = key.id === viewer.principal.keyId;
    return renderPage(
      c,
      <ConfirmPage viewer={viewer} title={`Revoke the key ${key.name}?`} action={`/ui/keys/${key.id}/revoke`} button="Revoke key" back="/ui/keys">
        <p>
          Requests with the key <code>lp_{key.prefix}…</code> ({key.scopes.join(", ")}), created <Time iso={key.created_at} />, are refused from the moment
          it is revoked. It cannot be undone.
        </p>
        {own && (
          <p class="notice error" role="alert">
            This is the key you are signed in with: revoking it signs you out.
          </p>
        )}
      </ConfirmPage>,
    );
  });

  router.post("/ui/keys/:id/revoke", (c) => {
    requireUiScope(c, "admin");
    keys.revoke(c.req.param("id"));
    return c.redirect("/ui/keys?notice=revoked", 303);
  });

  return router;
}

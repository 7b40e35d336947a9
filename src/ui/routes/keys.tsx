/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { KeysService } from "../../services/keys.service.ts";
import { showAgain } from "../form-problem.ts";
import { KeyList, RevokeKeyPage } from "../pages/key-pages.tsx";
import type { UiEnv } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";

/**
 * API keys for admins: the list, creating a key with chosen scopes (its secret on the answer to that form only,
 * never again, like a webhook's secret), and revoking one after a confirmation page. Any other key gets 403.
 * Through KeysService, as `linkpatrol keys` does.
 */
export function keysRouter(keys: KeysService) {
  const router = new Hono<UiEnv>();
  const head = { title: "API keys" };

  router.get("/ui/keys", async (c) => {
    const viewer = requireUiScope(c, "admin");
    return c.render(<KeyList viewer={viewer} keys={await keys.list()} notice={c.req.query("notice")} />, head);
  });

  router.post("/ui/keys", async (c) => {
    const viewer = requireUiScope(c, "admin");
    const form = await c.req.parseBody({ all: true });
    const name = typeof form.name === "string" ? form.name.trim().slice(0, 200) : "";
    const scopes = ([] as unknown[])
      .concat(form.scopes ?? [])
      .filter((scope): scope is string => typeof scope === "string")
      .slice(0, 20);
    try {
      const created = await keys.create(name, scopes);
      // The secret is on this answer only: no redirect (it would have to carry it), and pages are never cached.
      c.status(201);
      return c.render(<KeyList viewer={viewer} keys={await keys.list()} created={created} />, head);
    } catch (error) {
      const list = await keys.list();
      return showAgain(c, error, "The key was not created.", (problem) =>
        c.render(<KeyList viewer={viewer} keys={list} error={problem} draft={{ name, scopes }} />, head),
      );
    }
  });

  router.get("/ui/keys/:id/revoke", async (c) => {
    const viewer = requireUiScope(c, "admin");
    const key = await keys.get(c.req.param("id"));
    return c.render(<RevokeKeyPage viewer={viewer} apiKey={key} />, { title: `Revoke the key ${key.name}?` });
  });

  router.post("/ui/keys/:id/revoke", async (c) => {
    requireUiScope(c, "admin");
    await keys.revoke(c.req.param("id"));
    return c.redirect("/ui/keys?notice=revoked", 303);
  });

  return router;
}

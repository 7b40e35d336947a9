import { Hono } from "hono";
import css from "./assets/dashboard.css" with { type: "text" };
import script from "./assets/dashboard.client.js" with { type: "text" };
import icon from "./assets/icon.svg" with { type: "text" };

/**
 * The dashboard's three static files (stylesheet, script, icon), embedded in the executable at build time (imported as text, like the
 * migrations) and served from memory. Their URLs carry a hash of their content, so browsers may keep them
 * for a year and still never run an old script after an upgrade.
 */

interface Asset {
  body: string;
  type: string;
  path: string;
}

function asset(name: string, ext: string, body: string, type: string): Asset {
  const hash = Bun.hash(body).toString(16).slice(0, 12);
  return { body, type, path: `/ui/assets/${name}.${hash}.${ext}` };
}

export const STYLESHEET = asset("dashboard", "css", css, "text/css; charset=utf-8");
export const SCRIPT = asset("dashboard", "js", script, "text/javascript; charset=utf-8");
export const ICON = asset("icon", "svg", icon, "image/svg+xml");

/** GET routes for the assets (no session needed: they hold nothing private). */
export function assetsRouter(): Hono {
  const router = new Hono();
  for (const file of [STYLESHEET, SCRIPT, ICON]) {
    router.get(file.path, (c) => {
      c.header("Content-Type", file.type);
      c.header("Cache-Control", "public, max-age=31536000, immutable");
      return c.body(file.body);
    });
  }
  return router;
}

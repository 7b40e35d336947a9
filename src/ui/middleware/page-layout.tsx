/** @jsxImportSource hono/jsx */
import type { MiddlewareHandler } from "hono";
import { raw } from "hono/html";
import { jsxRenderer } from "hono/jsx-renderer";
import { visibleText } from "../../core/visible-text.ts";
import { Layout } from "../components/layout.tsx";
import type { UiEnv, Viewer } from "../ui-env.ts";

/**
 * The page shell for every dashboard path (hono's jsx-renderer). Every page passes here, so this is where crawled
 * text is made visible-safe (core/visible-text.ts).
 */

/** What a route tells the shell besides the page. */
interface PageHead {
  title: string;
  /** Reload the page every so many seconds (a running crawl's page without its script). */
  refreshSeconds?: number;
  /** Show the shell as to someone signed out (the sign-in page), whoever the session names. */
  signedOut?: true;
}

declare module "hono" {
  interface ContextRenderer {
    // biome-ignore lint/style/useShorthandFunctionType: an interface, so that it merges with hono's own declaration
    (page: string | Promise<string>, head: PageHead): Response | Promise<Response>;
  }
}

/** The shell of every page; its footer names `node`, the node that answered. */
export function pageLayout(node: string): MiddlewareHandler<UiEnv> {
  return jsxRenderer(
    async ({ children, title, refreshSeconds, signedOut }, c) => {
      const viewer: Viewer | null = signedOut ? null : (c.get("viewer") ?? null);
      const html = await (
        <Layout title={title} viewer={viewer} node={node} refreshSeconds={refreshSeconds}>
          {children}
        </Layout>
      ).toString();
      return raw(visibleText(html));
    },
    { docType: "<!doctype html>" },
  );
}

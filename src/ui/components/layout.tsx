/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { VERSION } from "../../core/version.ts";
import { ICON, SCRIPT, STYLESHEET } from "../assets.ts";
import type { Viewer } from "../ui-env.ts";

/**
 * The page shell: skip link, header with navigation and the signed-in key, main content, footer with the
 * version. Only our own stylesheet and script are referenced (the CSP allows nothing else).
 */
export function Layout(props: { title: string; viewer: Viewer | null; node: string; children?: Child; refreshSeconds?: number }) {
  const { viewer } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        {props.refreshSeconds !== undefined && <meta http-equiv="refresh" content={String(props.refreshSeconds)} />}
        <title>{`${props.title} · linkpatrol`}</title>
        <link rel="icon" href={ICON.path} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET.path} />
        <script src={SCRIPT.path} defer></script>
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            linkpatrol
          </a>
          {viewer !== null && (
            <nav aria-label="Main">
              <ul>
                <li>
                  <a href="/">Overview</a>
                </li>
                <li>
                  <a href="/ui/webhooks">Webhooks</a>
                </li>
                {viewer.principal.scopes.includes("admin") && (
                  <li>
                    <a href="/ui/keys">API keys</a>
                  </li>
                )}
                <li>
                  <a href="/ui/channels">Notifications</a>
                </li>
                <li>
                  <a href="/docs">API docs</a>
                </li>
              </ul>
            </nav>
          )}
          {viewer !== null && (
            <div class="who">
              <span>
                Key <strong>{viewer.principal.name}</strong> ({viewer.principal.scopes.join(", ")})
              </span>
              <form class="inline" method="post" action="/ui/sign-out">
                <input type="hidden" name="_csrf" value={viewer.csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        <footer>
          linkpatrol {VERSION} · node {props.node}
        </footer>
      </body>
    </html>
  );
}

/** A hidden field with the session's CSRF token: every state-changing form starts with it. */
export function Csrf(props: { viewer: Viewer }) {
  return <input type="hidden" name="_csrf" value={props.viewer.csrf} />;
}

/** A table's column headings; a name may carry its cell classes after a bar ("Links|num"). */
export function Columns(props: { names: string[] }) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => {
          const [label, classes] = name.split("|");
          return (
            <th scope="col" class={classes}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A success notice (a redirect's `?notice=` in words); nothing when there is none. */
export function Notice(props: { text?: string }) {
  return props.text === undefined ? null : (
    <p class="notice success" role="status">
      {props.text}
    </p>
  );
}

/** A status word as a coloured badge (colour is never the only signal: the word is there). */
export function StatusBadge(props: { status: string }) {
  const tone =
    props.status === "completed" || props.status === "verified" || props.status === "delivered"
      ? "ok"
      : props.status === "failed" || props.status === "dead" || props.status === "unverified" || props.status === "revoked"
        ? "bad"
        : props.status === "running" || props.status === "pending"
          ? "warn"
          : "neutral";
  return <span class={`badge ${tone}`}>{props.status}</span>;
}

/** A crawl's status as a badge; a cancelled crawl (spec status `failed`, failure `cancelled`) reads "cancelled". */
export function CrawlStatusBadge(props: { status: string; failure: string | null }) {
  if (props.status === "failed" && props.failure === "cancelled") {
    return (
      <span class="badge neutral" title="status failed, failure cancelled">
        cancelled
      </span>
    );
  }
  return <StatusBadge status={props.status} />;
}

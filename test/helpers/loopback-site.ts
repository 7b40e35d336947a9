/**
 * A throwaway web site on 127.0.0.1 for tests that need a real HTTP server: a table of paths with canned
 * answers, plus custom handlers for anything dynamic (redirect chains, slow bodies, hung requests). Every
 * request is logged so a test can prove what was (or was not) asked for. Optional TLS for HTTPS tests.
 *
 *   const site = await startLoopbackSite({ "/": { body: "<html>…</html>" }, "/gone": { status: 410 } });
 *   await fetch(site.url("/"));  expect(site.requests).toEqual(["GET /"]);  await site.stop();
 */
import type { Server } from "bun";

/** A canned answer; status defaults to 200, body to "", Content-Type to text/html for string bodies. */
export interface CannedResponse {
  status?: number;
  body?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

/** A custom answer; the second argument is the site itself (for absolute URLs to its own paths). */
export type RouteHandler = (request: Request, site: LoopbackSite) => Response | Promise<Response>;

/** What a path maps to. */
export type Route = CannedResponse | RouteHandler;

/** Options beyond the route table. */
export interface LoopbackSiteOptions {
  /** Answers paths missing from the table; default 404 "not found". */
  fallback?: RouteHandler;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string; key: string };
  /** Bind address; default 127.0.0.1 (any 127.x address works on Linux). */
  hostname?: string;
  /** Port; default 0 (a free one). */
  port?: number;
}

/** A running site. */
export interface LoopbackSite {
  /** "http://127.0.0.1:PORT" (or https://). */
  origin: string;
  /** "127.0.0.1:PORT". */
  host: string;
  port: number;
  /** Absolute URL of a path on this site. */
  url(path: string): string;
  /** Every request received, as "METHOD /path?query", in arrival order. */
  requests: string[];
  /** Request headers of every request, same order as `requests` (names in lower case). */
  requestHeaders: Record<string, string>[];
  /** Stops the server and closes open connections; a handler awaiting a promise is cut, one in Bun.sleep is waited for. */
  stop(): Promise<void>;
}

function canned(route: CannedResponse): Response {
  const headers = new Headers(route.headers);
  if (typeof route.body === "string" && !headers.has("content-type")) {
    headers.set("content-type", "text/html; charset=utf-8");
  }
  return new Response(route.body ?? "", { status: route.status ?? 200, headers });
}

/** Starts a site serving `routes` (keys are paths without query string) on a random loopback port. */
export async function startLoopbackSite(routes: Record<string, Route> = {}, options: LoopbackSiteOptions = {}): Promise<LoopbackSite> {
  const requests: string[] = [];
  const requestHeaders: Record<string, string>[] = [];
  const fallback: RouteHandler = options.fallback ?? (() => new Response("not found", { status: 404 }));
  let site: LoopbackSite | undefined;

  const server: Server<undefined> = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    tls: options.tls,
    // A held answer stays held until the test releases it or stops the site: Bun's default 10 s idle cut would
    // fail the client's request, a fault no test means (it made a held-crawl test flaky on a slow CI run).
    idleTimeout: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      requestHeaders.push(headers);
      const route = routes[url.pathname];
      if (route === undefined) return fallback(request, site!);
      return typeof route === "function" ? route(request, site!) : canned(route);
    },
  });

  const scheme = options.tls ? "https" : "http";
  const hostPart = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  const host = `${hostPart}:${server.port}`;
  site = {
    origin: `${scheme}://${host}`,
    host,
    port: server.port ?? 0,
    url: (path) => `${scheme}://${host}${path}`,
    requests,
    requestHeaders,
    stop: () => server.stop(true),
  };
  return site;
}

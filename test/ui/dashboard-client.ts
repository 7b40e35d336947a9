import type { TestService } from "../helpers/service.ts";

/**
 * A minimal browser for server-side dashboard tests: keeps cookies, follows nothing by itself (redirects are
 * asserted), reads the CSRF token from the last page, and posts forms the way a browser does
 * (application/x-www-form-urlencoded, with an Origin header).
 */

export interface Page {
  status: number;
  headers: Headers;
  /** The body with the `<wbr/>` that URLs carry to wrap on a phone taken out, so tests read URLs as text. */
  html: string;
  /** The body as it was sent. */
  raw: string;
  location: string | null;
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that had one. */
  csrf: string | null = null;

  constructor(readonly origin: string) {}

  /** GET a dashboard path. */
  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send("GET", path, undefined, headers);
  }

  /** POST a form; the session's CSRF token is added unless `form._csrf` is given (null: leave it out). */
  async post(path: string, form: Record<string, string | string[] | null> = {}, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams();
    const fields = { _csrf: this.csrf, ...form };
    for (const [name, value] of Object.entries(fields)) {
      if (value === null) continue;
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    return this.send("POST", path, body, { "content-type": "application/x-www-form-urlencoded", origin: this.origin, ...headers });
  }

  /** Signs in with `key` through the form; returns the answer to the POST. */
  async signIn(key: string): Promise<Page> {
    const form = await this.get("/ui/sign-in");
    const token = /name="_token" value="([^"]+)"/.exec(form.html)?.[1];
    if (token === undefined) throw new Error(`no sign-in token on the page: ${form.status}`);
    return this.post("/ui/sign-in", { _token: token, key, next: "/", _csrf: null });
  }

  /** Signs in and fails the test unless that worked; loads the overview to pick up the CSRF token. */
  async signedIn(key: string): Promise<this> {
    const answer = await this.signIn(key);
    if (answer.status !== 303 || !this.cookies.has("lp_session")) throw new Error(`sign-in failed: ${answer.status} ${answer.html.slice(0, 300)}`);
    await this.get("/");
    return this;
  }

  private async send(method: string, path: string, body: URLSearchParams | undefined, headers: Record<string, string>): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const res = await fetch(`${this.origin}${path}`, {
      method,
      body,
      redirect: "manual",
      headers: { ...(cookie === "" ? {} : { cookie }), ...headers },
      signal: AbortSignal.timeout(15_000),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const raw = await res.text();
    const html = raw.replaceAll("<wbr/>", "");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (csrf !== undefined) this.csrf = csrf;
    return { status: res.status, headers: res.headers, html, raw, location: res.headers.get("location") };
  }
}

/** A signed-in client for `key` (default: the service's admin key). */
export async function signedInClient(svc: TestService, key = svc.adminKey): Promise<DashboardClient> {
  return new DashboardClient(svc.origin).signedIn(key);
}

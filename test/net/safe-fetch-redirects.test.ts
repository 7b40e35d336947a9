import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { tableResolver } from "../helpers/table-resolver.ts";

// Every redirect hop is a new URL: it is resolved, checked and pinned like the first one.

const resolve = tableResolver({
  "site.linkpatrol.test": "127.0.0.1",
  "other.linkpatrol.test": "127.0.0.1",
  "evil.linkpatrol.test": "127.0.0.2",
});

/** Names from the table above, up to 5 redirects followed. */
function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return testFetchOptions({ resolve, maxRedirects: 5, ...overrides });
}

function redirect(status: number, location: string): Response {
  return new Response(null, { status, headers: { location } });
}

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite(
    {
      "/final": { body: "arrived" },
      "/relative": () => redirect(302, "final?from=relative#section"),
      "/to-evil": (_request, self) => redirect(302, `http://evil.linkpatrol.test:${self.port}/final`),
      "/to-other-origin": (_request, self) => redirect(307, `http://other.linkpatrol.test:${self.port}/echo-auth`),
      "/to-same-origin": () => redirect(307, "/echo-auth"),
      "/echo-auth": (request) => new Response(`auth=${request.headers.get("authorization") ?? "none"}`),
      "/loop-a": () => redirect(301, "/loop-b"),
      "/loop-b": () => redirect(301, "/loop-a"),
      "/to-ftp": () => redirect(302, "ftp://files.example/x"),
      "/to-file": () => redirect(302, "file:///etc/passwd"),
      "/to-nowhere": (_request, self) => redirect(302, `http://missing.linkpatrol.test:${self.port}/`),
      "/no-location": { status: 302, body: "moved, somewhere" },
      "/method": (request) => new Response(null, { status: 200, headers: { "x-method": request.method } }),
      "/to-method": () => redirect(303, "/method"),
    },
    {
      fallback: (request) => {
        // /chain/N redirects to /chain/N+1 forever: only the redirect cap ends it.
        const match = /^\/chain\/(\d+)$/.exec(new URL(request.url).pathname);
        if (match) return redirect(302, `/chain/${Number(match[1]) + 1}`);
        const status = /^\/status\/(\d+)$/.exec(new URL(request.url).pathname);
        if (status) return redirect(Number(status[1]), "/final");
        return new Response("not found", { status: 404 });
      },
    },
  );
});
afterAll(() => site.stop());

function requestsSince(before: number): string[] {
  return site.requests.slice(before);
}

describe("safeFetch redirects", () => {
  test("a redirect to a name resolving to a refused address fails on that hop, before connecting", async () => {
    const before = site.requests.length;

    const result = await safeFetch(site.url("/to-evil"), options());

    expect(result.kind).toBe("error");
    if (result.kind !== "error") return;
    expect(result.error).toBe("unsafe_url");
    expect(result.url).toBe(`http://evil.linkpatrol.test:${site.port}/final`);
    expect(result.message).toContain("127.0.0.2");
    // The first hop was allowed and asked; the refused hop never was (127.0.0.2 would not even reach this server).
    expect(requestsSince(before)).toEqual(["GET /to-evil"]);
  });

  test("a relative Location is resolved against the current URL and the fragment is dropped", async () => {
    const result = await safeFetch(site.url("/relative"), options());

    expect(result).toMatchObject({
      kind: "response",
      status: 200,
      finalUrl: site.url("/final?from=relative"),
      redirectChain: [site.url("/relative")],
    });
  });

  for (const status of [301, 302, 303, 307, 308]) {
    test(`status ${status} is followed`, async () => {
      const result = await safeFetch(site.url(`/status/${status}`), options());

      expect(result).toMatchObject({ kind: "response", status: 200, finalUrl: site.url("/final") });
    });
  }

  test("a loop is reported as redirect_loop", async () => {
    const before = site.requests.length;

    const result = await safeFetch(site.url("/loop-a"), options({ maxRedirects: 10 }));

    expect(result).toMatchObject({ kind: "error", error: "redirect_loop", url: site.url("/loop-a") });
    expect(requestsSince(before)).toEqual(["GET /loop-a", "GET /loop-b"]);
  });

  test("more redirects than maxRedirects is too_many_redirects, after exactly maxRedirects + 1 requests", async () => {
    const before = site.requests.length;

    const result = await safeFetch(site.url("/chain/0"), options({ maxRedirects: 3 }));

    expect(result).toMatchObject({ kind: "error", error: "too_many_redirects" });
    expect(requestsSince(before)).toEqual(["GET /chain/0", "GET /chain/1", "GET /chain/2", "GET /chain/3"]);
  });

  test("exactly maxRedirects redirects still arrive", async () => {
    const result = await safeFetch(site.url("/status/302"), options({ maxRedirects: 1 }));

    expect(result).toMatchObject({ kind: "response", status: 200, redirectChain: [site.url("/status/302")] });
  });

  test("maxRedirects 0 returns the redirect itself", async () => {
    const result = await safeFetch(site.url("/loop-a"), options({ maxRedirects: 0 }));

    expect(result).toMatchObject({ kind: "response", status: 301, finalUrl: site.url("/loop-a"), redirectChain: [] });
    if (result.kind === "response") expect(result.headers.location).toBe("/loop-b");
  });

  test("a 3xx without Location is an answer, not a redirect", async () => {
    const result = await safeFetch(site.url("/no-location"), options());

    expect(result).toMatchObject({ kind: "response", status: 302 });
    if (result.kind === "response") expect(new TextDecoder().decode(result.body)).toBe("moved, somewhere");
  });

  test("redirects to other schemes are unsafe_url", async () => {
    for (const path of ["/to-ftp", "/to-file"]) {
      const result = await safeFetch(site.url(path), options());
      expect(result).toMatchObject({ kind: "error", error: "unsafe_url" });
    }
  });

  test("a redirect to a name that does not resolve is a dns error on that hop", async () => {
    const result = await safeFetch(site.url("/to-nowhere"), options());

    expect(result).toMatchObject({ kind: "error", error: "dns", url: `http://missing.linkpatrol.test:${site.port}/` });
  });

  test("credentials follow a same-origin redirect but not a cross-origin one", async () => {
    const headers = { Authorization: "Bearer secret" };

    const same = await safeFetch(site.url("/to-same-origin"), options({ headers }));
    const cross = await safeFetch(site.url("/to-other-origin"), options({ headers }));

    if (same.kind !== "response" || cross.kind !== "response") throw new Error("expected two responses");
    expect(new TextDecoder().decode(same.body)).toBe("auth=Bearer secret");
    expect(new TextDecoder().decode(cross.body)).toBe("auth=none");
    expect(cross.finalUrl).toBe(`http://other.linkpatrol.test:${site.port}/echo-auth`);
  });

  test("HEAD stays HEAD across a redirect", async () => {
    const result = await safeFetch(site.url("/to-method"), options({ method: "HEAD" }));

    expect(result).toMatchObject({ kind: "response", status: 200 });
    if (result.kind === "response") expect(result.headers["x-method"]).toBe("HEAD");
  });
});

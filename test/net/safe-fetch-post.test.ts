import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// POST with a body (webhook deliveries): the exact bytes arrive with an exact Content-Length, and redirects
// treat the method the way RFC 9110 and browsers do.

/** Echoes what arrived: method, Content-Length, Content-Type and the body itself. */
async function echo(request: Request): Promise<Response> {
  const body = new Uint8Array(await request.arrayBuffer());
  return new Response(body, {
    headers: {
      "x-method": request.method,
      "x-length": request.headers.get("content-length") ?? "none",
      "x-type": request.headers.get("content-type") ?? "none",
      "x-chunked": request.headers.get("transfer-encoding") ?? "none",
    },
  });
}

function redirect(status: number, location: string): Response {
  return new Response(null, { status, headers: { location } });
}

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite(
    { "/echo": echo },
    {
      fallback: (request) => {
        const status = /^\/status\/(\d+)$/.exec(new URL(request.url).pathname);
        return status ? redirect(Number(status[1]), "/echo") : new Response("not found", { status: 404 });
      },
    },
  );
});
afterAll(() => site.stop());

function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return testFetchOptions({ method: "POST", headers: { "content-type": "application/json" }, ...overrides });
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("safeFetch POST", () => {
  test("sends the body byte for byte with its Content-Length, not chunked", async () => {
    const body = JSON.stringify({ text: "grüße ✓" });
    const result = await safeFetch(site.url("/echo"), options({ body, headers: { "Content-Length": "1" } }));

    expect(result.kind).toBe("response");
    if (result.kind !== "response") return;
    expect(decode(result.body)).toBe(body);
    expect(result.headers["x-method"]).toBe("POST");
    expect(result.headers["x-length"]).toBe(String(Buffer.byteLength(body)));
    expect(result.headers["x-chunked"]).toBe("none");
  });

  test("a Uint8Array body is sent as it is", async () => {
    const body = new Uint8Array([0, 1, 2, 250, 255]);
    const result = await safeFetch(site.url("/echo"), options({ body }));

    expect(result.kind === "response" && [...result.body]).toEqual([...body]);
  });

  test("an empty body is sent as Content-Length 0", async () => {
    const result = await safeFetch(site.url("/echo"), options({ body: "" }));

    expect(result.kind === "response" && result.headers["x-length"]).toBe("0");
  });

  test.each([301, 302, 303])("after a %d the POST becomes a GET without body or Content-Type", async (status) => {
    const result = await safeFetch(site.url(`/status/${status}`), options({ body: "{}", maxRedirects: 1 }));

    expect(result.kind).toBe("response");
    if (result.kind !== "response") return;
    expect(result.headers["x-method"]).toBe("GET");
    expect(result.headers["x-type"]).toBe("none");
    expect(decode(result.body)).toBe("");
  });

  test.each([307, 308])("after a %d the POST is repeated with its body", async (status) => {
    const result = await safeFetch(site.url(`/status/${status}`), options({ body: '{"a":1}', maxRedirects: 1 }));

    expect(result.kind).toBe("response");
    if (result.kind !== "response") return;
    expect(result.headers["x-method"]).toBe("POST");
    expect(decode(result.body)).toBe('{"a":1}');
  });

  test("with maxRedirects 0 the 3xx is the answer and its Location is not visited", async () => {
    const before = site.requests.length;
    const result = await safeFetch(site.url("/status/307"), options({ body: "{}" }));

    expect(result).toMatchObject({ kind: "response", status: 307 });
    expect(site.requests.slice(before)).toEqual(["POST /status/307"]);
  });

  test("a refused address names the hint the caller gives", async () => {
    const result = await safeFetch(site.url("/echo"), options({ policy: { allowPrivateNetworks: false, allowedCidrs: [] }, policyHint: "allow it with x.y" }));

    expect(result).toMatchObject({ kind: "error", error: "unsafe_url" });
    expect(result.kind === "error" && result.message).toEndWith("allow it with x.y");
  });
});

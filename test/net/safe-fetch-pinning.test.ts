import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AddressPolicy } from "../../src/net/address-policy.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { LOOPBACK_ONLY, testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { tableResolver } from "../helpers/table-resolver.ts";

// The request must go to the address OUR resolver produced and was checked, never to a second lookup.

const DEFAULT_POLICY: AddressPolicy = { allowPrivateNetworks: false, allowedCidrs: [] };
const ALL_PRIVATE: AddressPolicy = { allowPrivateNetworks: true, allowedCidrs: [] };

function options(policy: AddressPolicy, resolve: Resolve): SafeFetchOptions {
  return testFetchOptions({ policy, resolve, maxRedirects: 5, userAgent: "linkpatrol-test/{version}" });
}

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite({
    "/": (request) => new Response(`hello ${request.headers.get("host")}`),
  });
});
afterAll(() => site.stop());

describe("safeFetch pins the connection to the checked address", () => {
  test("a name only our resolver knows reaches the loopback server it was mapped to", async () => {
    const resolve = tableResolver({ "pinned.linkpatrol.test": "127.0.0.1" });
    const before = site.requests.length;

    const result = await safeFetch(`http://pinned.linkpatrol.test:${site.port}/`, options(LOOPBACK_ONLY, resolve));

    expect(result.kind).toBe("response");
    if (result.kind !== "response") return;
    expect(result.status).toBe(200);
    // The Host header carries the name while the TCP connection went to 127.0.0.1.
    expect(new TextDecoder().decode(result.body)).toBe(`hello pinned.linkpatrol.test:${site.port}`);
    expect(resolve.calls).toEqual(["pinned.linkpatrol.test"]);
    expect(site.requests.length).toBe(before + 1);
  });

  test("the resolved address is the one connected to: 127.0.0.2 does not reach a server bound to 127.0.0.1", async () => {
    const resolve = tableResolver({ "elsewhere.linkpatrol.test": "127.0.0.2" });
    const before = site.requests.length;

    const result = await safeFetch(`http://elsewhere.linkpatrol.test:${site.port}/`, {
      ...options(ALL_PRIVATE, resolve),
    });

    expect(result).toMatchObject({ kind: "error", error: "refused" });
    expect(site.requests.length).toBe(before);
  });

  test("a name the system resolves to 127.0.0.1 goes where OUR resolver said: 127.0.0.2", async () => {
    // Same port on two loopback addresses: only the address decides which server answers.
    const twin = await startLoopbackSite({ "/": { body: "twin on 127.0.0.2" } }, { hostname: "127.0.0.2", port: site.port });
    try {
      const resolve = tableResolver({ localhost: "127.0.0.2" });
      const before = site.requests.length;

      const result = await safeFetch(`http://localhost:${site.port}/`, options(ALL_PRIVATE, resolve));

      expect(result).toMatchObject({ kind: "response", status: 200 });
      if (result.kind === "response") expect(new TextDecoder().decode(result.body)).toBe("twin on 127.0.0.2");
      expect(twin.requests).toEqual(["GET /"]);
      expect(site.requests.length).toBe(before);
    } finally {
      await twin.stop();
    }
  });

  test("a name resolving to loopback under the default policy is refused before any connection", async () => {
    const resolve = tableResolver({ "rebind.linkpatrol.test": "127.0.0.1" });
    const before = site.requests.length;

    const result = await safeFetch(`http://rebind.linkpatrol.test:${site.port}/`, options(DEFAULT_POLICY, resolve));

    expect(result.kind).toBe("error");
    if (result.kind !== "error") return;
    expect(result.error).toBe("unsafe_url");
    expect(result.message).toContain("127.0.0.1");
    expect(site.requests.length).toBe(before);
  });

  test("a name resolving to 10.0.0.1 is refused without connecting anywhere", async () => {
    const resolve = tableResolver({ "internal.linkpatrol.test": "10.0.0.1" });

    const result = await safeFetch("http://internal.linkpatrol.test/", options(DEFAULT_POLICY, resolve));

    expect(result).toMatchObject({ kind: "error", error: "unsafe_url" });
    if (result.kind === "error") expect(result.message).toContain("10.0.0.1");
  });

  test("one refused address among several refuses the whole name", async () => {
    const calls: string[] = [];
    const resolve: Resolve = async (hostname) => {
      calls.push(hostname);
      return [
        { address: "127.0.0.1", family: 4 },
        { address: "169.254.169.254", family: 4 },
      ];
    };
    const before = site.requests.length;

    const result = await safeFetch(`http://mixed.linkpatrol.test:${site.port}/`, options(LOOPBACK_ONLY, resolve));

    expect(result).toMatchObject({ kind: "error", error: "unsafe_url" });
    if (result.kind === "error") expect(result.message).toContain("169.254.169.254");
    expect(site.requests.length).toBe(before);
  });

  test("when the first checked address refuses the connection, the next one is tried", async () => {
    const resolve: Resolve = async () => [
      { address: "127.0.0.2", family: 4 }, // nothing listens on this port at 127.0.0.2
      { address: "127.0.0.1", family: 4 },
    ];

    const result = await safeFetch(`http://two.linkpatrol.test:${site.port}/`, options(ALL_PRIVATE, resolve));

    expect(result).toMatchObject({ kind: "response", status: 200 });
  });

  test("an IP literal is checked without any lookup", async () => {
    const resolve = tableResolver({});

    const refused = await safeFetch(`${site.origin}/`, options(DEFAULT_POLICY, resolve));
    const allowed = await safeFetch(`${site.origin}/`, options(LOOPBACK_ONLY, resolve));

    expect(refused).toMatchObject({ kind: "error", error: "unsafe_url" });
    expect(allowed).toMatchObject({ kind: "response", status: 200 });
    expect(resolve.calls).toEqual([]);
  });

  test("an IPv4-mapped IPv6 literal of loopback is judged as loopback", async () => {
    const result = await safeFetch(`http://[::ffff:127.0.0.1]:${site.port}/`, options(DEFAULT_POLICY, tableResolver({})));

    expect(result).toMatchObject({ kind: "error", error: "unsafe_url" });
  });
});

import { describe, expect, test } from "bun:test";
import { UnsafeUrlError } from "../../src/core/errors.ts";
import type { AddressPolicy } from "../../src/net/address-policy.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import { assertUrlAllowed } from "../../src/net/url-policy.ts";

// The registration-time check: refuse what is visibly unsafe now, accept names that do not resolve yet.

const CLOSED: AddressPolicy = { allowPrivateNetworks: false, allowedCidrs: [] };

const resolve: Resolve = async (hostname) => {
  const table: Record<string, string[]> = {
    "public.linkpatrol.test": ["93.184.215.14"],
    "internal.linkpatrol.test": ["10.1.2.3"],
    "mixed.linkpatrol.test": ["93.184.215.14", "127.0.0.1"],
  };
  const addresses = table[hostname];
  if (addresses === undefined) throw Object.assign(new Error("no such name"), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: 4 as const }));
};

async function rejection(url: string, policy = CLOSED, resolver = resolve): Promise<unknown> {
  return assertUrlAllowed(url, policy, resolver).then(
    () => null,
    (error: unknown) => error,
  );
}

describe("assertUrlAllowed", () => {
  test("accepts an http(s) URL whose host resolves to public addresses", async () => {
    expect(await rejection("https://public.linkpatrol.test/")).toBeNull();
    expect(await rejection("http://public.linkpatrol.test:8080/docs")).toBeNull();
  });

  test("refuses other schemes", async () => {
    for (const url of ["ftp://public.linkpatrol.test/", "file:///etc/passwd", "javascript:alert(1)"]) {
      expect(await rejection(url)).toBeInstanceOf(UnsafeUrlError);
    }
  });

  test("refuses private IP literals unless the policy allows them", async () => {
    expect(await rejection("http://127.0.0.1:8080/")).toBeInstanceOf(UnsafeUrlError);
    expect(await rejection("http://[::1]/")).toBeInstanceOf(UnsafeUrlError);
    expect(await rejection("http://169.254.169.254/latest/meta-data/")).toBeInstanceOf(UnsafeUrlError);
    const loopbackAllowed = { allowPrivateNetworks: false, allowedCidrs: ["127.0.0.0/8"] };
    expect(await rejection("http://127.0.0.1:8080/", loopbackAllowed)).toBeNull();
    expect(await rejection("http://[::1]/", { allowPrivateNetworks: true, allowedCidrs: [] })).toBeNull();
  });

  test("refuses a name when any of its addresses is refused, and says which", async () => {
    const internal = await rejection("https://internal.linkpatrol.test/");
    const mixed = await rejection("https://mixed.linkpatrol.test/");

    expect(internal).toBeInstanceOf(UnsafeUrlError);
    expect((internal as Error).message).toContain("10.1.2.3");
    expect(mixed).toBeInstanceOf(UnsafeUrlError);
    expect((mixed as Error).message).toContain("127.0.0.1");
  });

  test("accepts a name that does not resolve yet (the fetch-time check still guards it)", async () => {
    expect(await rejection("https://not-yet.linkpatrol.test/")).toBeNull();
  });

  test("accepts a name whose lookup is too slow to judge, without waiting for it", async () => {
    const never: Resolve = () => new Promise(() => {});
    const started = performance.now();

    expect(await assertUrlAllowed("https://slow.linkpatrol.test/", CLOSED, never, 100)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("refuses text that is not a URL", async () => {
    expect(await rejection("not a url")).toBeInstanceOf(UnsafeUrlError);
  });
});

import { describe, expect, test } from "bun:test";
import { bareHostname, ipLiteral, systemResolve } from "../../src/net/resolve.ts";

// IP literals never touch DNS; names go to the system resolver with all their addresses.

describe("systemResolve", () => {
  test("IP literals come back as they are, brackets removed, without a lookup", async () => {
    expect(await systemResolve("127.0.0.1")).toEqual([{ address: "127.0.0.1", family: 4 }]);
    expect(await systemResolve("[::1]")).toEqual([{ address: "::1", family: 6 }]);
    expect(await systemResolve("::ffff:10.0.0.1")).toEqual([{ address: "::ffff:10.0.0.1", family: 6 }]);
  });

  test("localhost resolves through the system to loopback addresses only", async () => {
    const addresses = await systemResolve("localhost");

    expect(addresses.length).toBeGreaterThan(0);
    for (const entry of addresses) expect(["127.0.0.1", "::1"]).toContain(entry.address);
  });
});

describe("helpers", () => {
  test("bareHostname strips IPv6 brackets only", () => {
    expect(bareHostname("[::1]")).toBe("::1");
    expect(bareHostname("example.com")).toBe("example.com");
  });

  test("ipLiteral tells literals from names", () => {
    expect(ipLiteral("10.0.0.1")).toEqual({ address: "10.0.0.1", family: 4 });
    expect(ipLiteral("[fe80::1]")).toEqual({ address: "fe80::1", family: 6 });
    expect(ipLiteral("example.com")).toBeNull();
  });
});

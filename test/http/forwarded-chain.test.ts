import { describe, expect, test } from "bun:test";
import { addressBucketOf, clientOf, TrustedProxies } from "../../src/http/forwarded-chain.ts";

/** Reading the client's address through reverse proxies: only a trusted proxy's word counts. */

const trusted = new TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);

describe("X-Forwarded-For", () => {
  test("from a trusted peer, the address it appended is the client", () => {
    expect(clientOf("127.0.0.1", "203.0.113.5", "x-forwarded-for", trusted)).toBe("203.0.113.5");
  });

  test("through a chain of trusted proxies, the first untrusted address from the right", () => {
    // 1.1.1.1 is what the client wrote itself; 203.0.113.5 is what the first trusted proxy saw.
    expect(clientOf("127.0.0.1", "1.1.1.1, 203.0.113.5, 10.0.0.3", "x-forwarded-for", trusted)).toBe("203.0.113.5");
  });

  test("from an untrusted peer the header is ignored", () => {
    expect(clientOf("192.0.2.9", "203.0.113.5", "x-forwarded-for", trusted)).toBe("192.0.2.9");
    expect(clientOf("192.0.2.9", "203.0.113.5", "x-forwarded-for", new TrustedProxies([]))).toBe("192.0.2.9");
  });

  test("garbage ends the walk at the last trusted hop; an IPv4-mapped peer is IPv4", () => {
    expect(clientOf("::ffff:127.0.0.1", "not-an-ip, 10.1.1.1", "x-forwarded-for", trusted)).toBe("10.1.1.1");
    expect(clientOf("127.0.0.1", "garbage", "x-forwarded-for", trusted)).toBe("127.0.0.1");
  });
});

describe("Forwarded (RFC 7239)", () => {
  test("for= values, quoted IPv6 with a port, other parameters ignored", () => {
    expect(clientOf("127.0.0.1", 'for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"', "forwarded", trusted)).toBe("2001:db8:cafe::17");
    expect(clientOf("127.0.0.1", "for=unknown", "forwarded", trusted)).toBe("127.0.0.1");
  });

  test("only the configured header is read", () => {
    expect(clientOf("127.0.0.1", null, "forwarded", trusted)).toBe("127.0.0.1");
  });
});

describe("rate-limit buckets by address", () => {
  test("IPv4 by address, IPv6 by /64", () => {
    expect(addressBucketOf("203.0.113.5")).toBe("203.0.113.5");
    expect(addressBucketOf("2001:db8::1:2:3:4")).toBe("2001:db8::/64");
    expect(addressBucketOf("2001:db8:0:0:ffff::1")).toBe(addressBucketOf("2001:db8::9"));
  });
});

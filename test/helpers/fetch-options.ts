import type { AddressPolicy } from "../../src/net/address-policy.ts";
import type { SafeFetchOptions } from "../../src/net/safe-fetch.ts";

/** Refuses every private address except 127.0.0.1, where the tests' loopback servers listen. */
export const LOOPBACK_ONLY: AddressPolicy = { allowPrivateNetworks: false, allowedCidrs: ["127.0.0.1/32"] };

/**
 * SafeFetchOptions for tests: the LOOPBACK_ONLY policy, the system resolver, 1 s to connect, 2 s for the headers
 * and 2 s for the body, a 64 KiB body cap, no redirects followed, User-Agent "linkpatrol-test".
 * A file passes only what it needs differently; `overrides` win, including an explicit `undefined`.
 */
export function testFetchOptions(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    policy: LOOPBACK_ONLY,
    connectTimeoutMs: 1_000,
    headerTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    maxBodyBytes: 64 * 1024,
    maxRedirects: 0,
    userAgent: "linkpatrol-test",
    ...overrides,
  };
}

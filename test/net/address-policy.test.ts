import { describe, expect, test } from "bun:test";
import { isAddressAllowed, isPrivateAddress, policyFromCrawlerConfig } from "../../src/net/address-policy.ts";

// Which addresses are private, and what the operator's policy lets through.

const PRIVATE = [
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "100.64.0.1",
  "100.127.255.255",
  "127.0.0.1",
  "127.255.255.254",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.168.1.1",
  "198.18.0.1",
  "198.19.255.255",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "ff02::1",
  "::ffff:127.0.0.1",
  "::ffff:10.1.2.3",
  "::ffff:169.254.169.254",
  "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
  "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
  "2001:db8::1",
];

const PUBLIC = [
  "1.1.1.1",
  "8.8.8.8",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.169.0.1",
  "198.20.0.1",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2a00:1450:4001::200e",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808", // NAT64 of 8.8.8.8
];

describe("isPrivateAddress", () => {
  test.each(PRIVATE)("%s is private", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  test.each(PUBLIC)("%s is public", (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  test("text that is not an address counts as private", () => {
    expect(isPrivateAddress("localhost")).toBe(true);
    expect(isPrivateAddress("")).toBe(true);
  });
});

describe("isAddressAllowed", () => {
  const closed = { allowPrivateNetworks: false, allowedCidrs: [] };

  test("public addresses are always allowed, private ones not by default", () => {
    expect(isAddressAllowed("8.8.8.8", closed)).toBe(true);
    expect(isAddressAllowed("2606:4700:4700::1111", closed)).toBe(true);
    expect(isAddressAllowed("127.0.0.1", closed)).toBe(false);
    expect(isAddressAllowed("::1", closed)).toBe(false);
  });

  test("allowPrivateNetworks opens every private address", () => {
    const open = { allowPrivateNetworks: true, allowedCidrs: [] };
    expect(isAddressAllowed("10.0.0.1", open)).toBe(true);
    expect(isAddressAllowed("fe80::1", open)).toBe(true);
  });

  test("allowedCidrs opens only the listed blocks, IPv4-mapped forms included", () => {
    const lan = { allowPrivateNetworks: false, allowedCidrs: ["192.168.10.0/24", "fd00:abcd::/32"] };
    expect(isAddressAllowed("192.168.10.7", lan)).toBe(true);
    expect(isAddressAllowed("::ffff:192.168.10.7", lan)).toBe(true);
    expect(isAddressAllowed("192.168.11.7", lan)).toBe(false);
    expect(isAddressAllowed("fd00:abcd::5", lan)).toBe(true);
    expect(isAddressAllowed("fd00:abce::5", lan)).toBe(false);
    expect(isAddressAllowed("127.0.0.1", lan)).toBe(false);
  });

  test("text that is not an address is never allowed, whatever the policy", () => {
    expect(isAddressAllowed("not-an-ip", { allowPrivateNetworks: true, allowedCidrs: ["0.0.0.0/0"] })).toBe(false);
  });
});

describe("policyFromCrawlerConfig", () => {
  test("copies the two settings", () => {
    expect(policyFromCrawlerConfig({ allow_private_networks: true, allowed_cidrs: ["10.0.0.0/8"] })).toEqual({
      allowPrivateNetworks: true,
      allowedCidrs: ["10.0.0.0/8"],
    });
  });

  test("a block that is not a CIDR stops it loudly instead of silently matching nothing", () => {
    expect(() => policyFromCrawlerConfig({ allow_private_networks: false, allowed_cidrs: ["300.1.1.1/8"] })).toThrow(/allowed_cidrs/);
  });
});

import { describe, expect, test } from "bun:test";
import { cidrContains, parseCidr, parseIp } from "../../src/net/cidr.ts";

// The CIDR matcher is hand-written, so its parsing edges are pinned down here.

function contains(cidr: string, ip: string): boolean {
  const block = parseCidr(cidr);
  const address = parseIp(ip);
  if (block === null || address === null) throw new Error(`unparsable ${cidr} or ${ip}`);
  return cidrContains(block, address);
}

describe("parseIp", () => {
  test("reads IPv4 dotted quads", () => {
    expect(parseIp("192.168.1.10")).toEqual({ family: 4, value: 0xc0a8010an });
    expect(parseIp("0.0.0.0")).toEqual({ family: 4, value: 0n });
    expect(parseIp("255.255.255.255")).toEqual({ family: 4, value: 0xffffffffn });
  });

  test("reads IPv6 in full, compressed, bracketed and with an IPv4 tail or a zone id", () => {
    expect(parseIp("2001:db8:0:0:0:0:0:1")).toEqual({ family: 6, value: 0x20010db8000000000000000000000001n });
    expect(parseIp("2001:db8::1")).toEqual(parseIp("2001:db8:0:0:0:0:0:1"));
    expect(parseIp("::")).toEqual({ family: 6, value: 0n });
    expect(parseIp("::1")).toEqual({ family: 6, value: 1n });
    expect(parseIp("[::1]")).toEqual({ family: 6, value: 1n });
    expect(parseIp("::ffff:127.0.0.1")).toEqual({ family: 6, value: 0xffff7f000001n });
    expect(parseIp("fe80::1%eth0")).toEqual(parseIp("fe80::1"));
    expect(parseIp("FE80::A")).toEqual(parseIp("fe80::a"));
  });

  test("refuses what is not exactly an address", () => {
    for (const text of [
      "",
      "localhost",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "0x7f.0.0.1",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7:8::",
      ":1",
      "12345::",
      "1.2.3.4::",
      "g::1",
    ]) {
      expect(parseIp(text)).toBeNull();
    }
  });
});

describe("parseCidr and cidrContains", () => {
  test("match inside the block and not outside", () => {
    expect(contains("10.0.0.0/8", "10.255.1.2")).toBe(true);
    expect(contains("10.0.0.0/8", "11.0.0.0")).toBe(false);
    expect(contains("172.16.0.0/12", "172.31.255.255")).toBe(true);
    expect(contains("172.16.0.0/12", "172.32.0.0")).toBe(false);
    expect(contains("127.0.0.1/32", "127.0.0.1")).toBe(true);
    expect(contains("127.0.0.1/32", "127.0.0.2")).toBe(false);
    expect(contains("0.0.0.0/0", "8.8.8.8")).toBe(true);
    expect(contains("fd00::/8", "fd12:3456::1")).toBe(true);
    expect(contains("fd00::/8", "fe00::1")).toBe(false);
    expect(contains("::/0", "2001:db8::1")).toBe(true);
  });

  test("families never match each other", () => {
    expect(contains("0.0.0.0/0", "::1")).toBe(false);
    expect(contains("::/0", "127.0.0.1")).toBe(false);
  });

  test("host bits in the network are masked off", () => {
    expect(parseCidr("10.1.2.3/8")).toEqual(parseCidr("10.0.0.0/8"));
  });

  test("malformed blocks parse to null", () => {
    for (const text of ["10.0.0.0", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/a", "300.0.0.0/8", "/8"]) {
      expect(parseCidr(text)).toBeNull();
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkDnsTxt, type DnsTxtSettings } from "../../src/verification/dns-txt.ts";
import type { VerificationTarget } from "../../src/verification/types.ts";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.ts";

// The TXT method against a real (test) DNS server on 127.0.0.1, reached through verification.dns_servers.

const TOKEN = "tok_3f9a1c";

let dns: TestDnsServer;
let silent: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({
    "_linkpatrol.good.linkpatrol.test": [["some-other=value"], [`linkpatrol-verify=${TOKEN}`]],
    "_linkpatrol.chunked.linkpatrol.test": [["linkpatrol-", "verify=", TOKEN]],
    "_linkpatrol.wrong.linkpatrol.test": [["linkpatrol-verify=someone-else"], ["v=spf1 -all"]],
    "_linkpatrol.prefix.linkpatrol.test": [[`linkpatrol-verify=${TOKEN}-and-more`]],
    "_linkpatrol.empty.linkpatrol.test": [],
  });
  silent = await startDnsServer({}, { silent: true });
});
afterAll(async () => {
  await dns.stop();
  await silent.stop();
});

function target(name: string): VerificationTarget {
  return { name, rootUrl: `https://${name}/`, token: TOKEN };
}

function settings(overrides: Partial<DnsTxtSettings> = {}): DnsTxtSettings {
  return { servers: [dns.address], timeoutMs: 2_000, ...overrides };
}

describe("DNS TXT verification", () => {
  test("passes when one of the records equals linkpatrol-verify=<token>", async () => {
    const result = await checkDnsTxt(target("good.linkpatrol.test"), settings());

    expect(result).toMatchObject({ method: "dns_txt", passed: true });
    expect(dns.queries).toContain("_linkpatrol.good.linkpatrol.test TXT");
  });

  test("joins the character-strings of one record before comparing (which Bun returns as separate entries)", async () => {
    const result = await checkDnsTxt(target("chunked.linkpatrol.test"), settings());

    expect(result.passed).toBe(true);
  });

  test("looks the name up without its port", async () => {
    const result = await checkDnsTxt(target("good.linkpatrol.test:8443"), settings());

    expect(result.passed).toBe(true);
    expect(dns.queries.at(-1)).toBe("_linkpatrol.good.linkpatrol.test TXT");
  });

  test("fails, counting the records, when none carries the token", async () => {
    const result = await checkDnsTxt(target("wrong.linkpatrol.test"), settings());

    expect(result).toEqual({
      method: "dns_txt",
      passed: false,
      reason: `found 2 TXT records at _linkpatrol.wrong.linkpatrol.test, none equal to linkpatrol-verify=${TOKEN}`,
    });
  });

  test("a record that merely starts with the value does not count", async () => {
    const result = await checkDnsTxt(target("prefix.linkpatrol.test"), settings());

    expect(result.passed).toBe(false);
  });

  test("fails with the resolver's code when the name does not exist", async () => {
    const result = await checkDnsTxt(target("absent.linkpatrol.test"), settings());

    expect(result).toEqual({
      method: "dns_txt",
      passed: false,
      reason: "TXT record _linkpatrol.absent.linkpatrol.test not found (ENOTFOUND)",
    });
  });

  test("fails when the name exists without TXT records", async () => {
    const result = await checkDnsTxt(target("empty.linkpatrol.test"), settings());

    expect(result.passed).toBe(false);
    expect(result.reason).toStartWith("TXT record _linkpatrol.empty.linkpatrol.test not found");
  });

  test("gives up at the timeout when the server never answers", async () => {
    const started = performance.now();

    const quick = settings({ servers: [silent.address], timeoutMs: 300 });
    const result = await checkDnsTxt(target("good.linkpatrol.test"), quick);

    expect(result.passed).toBe(false);
    expect(result.reason).toContain("no answer within 300 ms");
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(silent.queries.length).toBeGreaterThan(0);
  });

  test("does not apply to an IP address, and asks no server", async () => {
    const before = dns.queries.length;

    const v4 = await checkDnsTxt(target("127.0.0.1:8080"), settings());
    const v6 = await checkDnsTxt(target("[::1]:8080"), settings());

    expect(v4).toEqual({ method: "dns_txt", passed: false, reason: "DNS TXT does not apply to an IP address" });
    expect(v6.reason).toBe("DNS TXT does not apply to an IP address");
    expect(dns.queries.length).toBe(before);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { configSchema } from "../../src/config/schema.ts";
import type { Resolve } from "../../src/net/resolve.ts";
import { createDomainVerifier, verificationInstructions } from "../../src/verification/verifier.ts";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// The verifier as the domains service uses it: built from config, three methods at once, three results in order.

const TOKEN = "tok_5e88aa";
const resolve: Resolve = async (hostname) => {
  if (hostname.endsWith(".linkpatrol.test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error("no such name"), { code: "ENOTFOUND" });
};

function config(dnsServer: string, timeout = "3s") {
  return configSchema.parse({
    // header_timeout above any verification timeout here: a hung answer is cut by the verification deadline.
    crawler: { allowed_cidrs: ["127.0.0.1/32"], connect_timeout: "1s", header_timeout: "10s", body_timeout: "2s" },
    verification: { dns_servers: [dnsServer], timeout },
  });
}

// Hung handlers wait on this; afterAll releases them.
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

let dns: TestDnsServer;
let silentDns: TestDnsServer;
let site: LoopbackSite;
let hung: LoopbackSite;
beforeAll(async () => {
  dns = await startDnsServer({ "_linkpatrol.dns-only.linkpatrol.test": [[`linkpatrol-verify=${TOKEN}`]] });
  silentDns = await startDnsServer({}, { silent: true });
  site = await startLoopbackSite({
    "/": { body: `<html><head><meta name="linkpatrol-verify" content="${TOKEN}"></head><body></body></html>` },
  });
  const hang = async () => {
    await released;
    return new Response("too late");
  };
  hung = await startLoopbackSite({}, { fallback: hang });
});
afterAll(async () => {
  release();
  await Promise.all([dns.stop(), silentDns.stop(), site.stop(), hung.stop()]);
});

describe("createDomainVerifier", () => {
  test("returns all three results in the order dns_txt, http_file, meta_tag", async () => {
    const verifier = createDomainVerifier(config(dns.address), { resolve });
    const name = `meta-only.linkpatrol.test:${site.port}`;

    const results = await verifier.verify({ name, rootUrl: `http://${name}/`, token: TOKEN });

    expect(results.map((r) => [r.method, r.passed])).toEqual([
      ["dns_txt", false],
      ["http_file", false],
      ["meta_tag", true],
    ]);
    expect(results[0]!.reason).toBe("TXT record _linkpatrol.meta-only.linkpatrol.test not found (ENOTFOUND)");
    expect(results[1]!.reason).toBe(`GET http://${name}/.well-known/linkpatrol-verify.txt answered 404`);
    for (const result of results) expect(result.reason.length).toBeGreaterThan(0);
  });

  test("a domain proven by DNS alone passes dns_txt and fails the others", async () => {
    const verifier = createDomainVerifier(config(dns.address), { resolve });
    const name = `dns-only.linkpatrol.test:${site.port}`;

    const results = await verifier.verify({ name, rootUrl: `http://${name}/nothing-here`, token: TOKEN });

    expect(results.map((r) => [r.method, r.passed])).toEqual([
      ["dns_txt", true],
      ["http_file", false],
      ["meta_tag", false],
    ]);
    expect(results[2]!.reason).toBe(`GET http://${name}/nothing-here answered 404`);
  });

  test("runs the methods concurrently, each bounded by verification.timeout", async () => {
    const verifier = createDomainVerifier(config(silentDns.address, "2s"), { resolve });
    const name = `slow.linkpatrol.test:${hung.port}`;
    const requestsBefore = hung.requests.length;
    const queriesBefore = silentDns.queries.length;
    const started = performance.now();

    const pending = verifier.verify({ name, rootUrl: `http://${name}/`, token: TOKEN });
    // Each method hangs until its 2 s deadline: run one after another, only the first would have begun by 1.5 s.
    const asked = () => hung.requests.length - requestsBefore >= 2 && silentDns.queries.length > queriesBefore;
    while (!asked() && performance.now() - started < 1_500) await Bun.sleep(10);
    expect(hung.requests.length - requestsBefore).toBe(2);
    expect(silentDns.queries.length - queriesBefore).toBeGreaterThanOrEqual(1);
    const results = await pending;

    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(results.every((result) => !result.passed)).toBe(true);
    expect(results[1]!.reason).toContain("no answer within 2000 ms");
    expect(results[2]!.reason).toContain("no answer within 2000 ms");
  }, 10_000);
});

describe("verificationInstructions", () => {
  test("names the record, the file and the tag exactly as the contract says", () => {
    const instructions = verificationInstructions({
      name: "example.com:8443",
      rootUrl: "https://example.com:8443/blog/",
      token: TOKEN,
    });

    expect(instructions).toEqual({
      dns_txt: { name: "_linkpatrol.example.com", value: `linkpatrol-verify=${TOKEN}` },
      http_file: { url: "https://example.com:8443/.well-known/linkpatrol-verify.txt", body: TOKEN },
      meta_tag: { html: `<meta name="linkpatrol-verify" content="${TOKEN}">` },
    });
  });

  test("a default port is not repeated in the file URL", () => {
    const instructions = verificationInstructions({ name: "example.com", rootUrl: "https://example.com/", token: TOKEN });

    expect(instructions.http_file.url).toBe("https://example.com/.well-known/linkpatrol-verify.txt");
  });
});

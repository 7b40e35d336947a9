import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";

/**
 * POST /domains/{id}/verify end to end: the API on a socket, the proofs on real loopback servers
 * (a web site for the file and the meta tag, a DNS server for the TXT record).
 */

// Names under .test never resolve: the sites are reached by IP, the DNS proof by the test DNS server.
const offlineResolve = tableResolver({});

let dns: TestDnsServer;
let dnsRecords: Record<string, string[][]>;
let svc: TestService;
const sites: LoopbackSite[] = [];

beforeAll(async () => {
  dnsRecords = {};
  dns = await startDnsServer(dnsRecords);
  svc = await startTestService({ verification: { dns_servers: [dns.address] } }, { resolve: offlineResolve });
});
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await svc.stop();
  await dns.stop();
});

async function site(routes: Parameters<typeof startLoopbackSite>[0]) {
  const s = await startLoopbackSite(routes);
  sites.push(s);
  return s;
}

async function addDomain(name: string, root_url?: string) {
  const res = await svc.call("POST", "/domains", { body: root_url ? { name, root_url } : { name } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json.data as { id: string; verification: { token: string } };
}

describe("POST /domains/{id}/verify", () => {
  test("HTTP file: a 2xx /.well-known/linkpatrol-verify.txt containing the token verifies", async () => {
    let token = "";
    const s = await site({ "/.well-known/linkpatrol-verify.txt": () => new Response(`${token}\n`) });
    const domain = await addDomain(s.host, `${s.origin}/`);
    token = domain.verification.token;
    const res = await svc.call("POST", `/domains/${domain.id}/verify`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: domain.id, verified: true, verified_by: "http_file" });
    expect(new Date(res.json.data.verified_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(s.requests).toContain("GET /.well-known/linkpatrol-verify.txt");
    expect((await svc.call("GET", `/domains/${domain.id}`)).json.data.verified).toBe(true);
  });

  test("meta tag on the root page verifies", async () => {
    let token = "";
    const s = await site({
      "/docs/": () =>
        new Response(`<!doctype html><html><head><title>x</title><META Name="LinkPatrol-Verify" content=" ${token} "></head><body>hi</body></html>`, {
          headers: { "content-type": "text/html" },
        }),
    });
    const domain = await addDomain(s.host, `${s.origin}/docs/`);
    token = domain.verification.token;
    const res = await svc.call("POST", `/domains/${domain.id}/verify`);
    expect(res.status).toBe(200);
    expect(res.json.data.verified_by).toBe("meta_tag");
    expect(s.requests).toContain("GET /docs/");
  });

  test("DNS TXT at _linkpatrol.HOST verifies, asked of verification.dns_servers", async () => {
    const domain = await addDomain("dns-proof.test");
    dnsRecords["_linkpatrol.dns-proof.test"] = [["unrelated=1"], ["linkpatrol-verify=", domain.verification.token]];
    const res = await svc.call("POST", `/domains/${domain.id}/verify`);
    expect(res.status).toBe(200);
    expect(res.json.data.verified_by).toBe("dns_txt");
    expect(dns.queries).toContain("_linkpatrol.dns-proof.test TXT");
  });

  test("no method passes: 422 domain_not_verified with each method's reason; the domain stays unverified", async () => {
    const s = await site({
      "/": { body: '<html><head><meta name="linkpatrol-verify" content="someone-elses-token"></head></html>' },
      "/.well-known/linkpatrol-verify.txt": { body: "wrong-token", headers: { "content-type": "text/plain" } },
    });
    const domain = await addDomain(s.host, `${s.origin}/`);
    const error = expectErrorEnvelope(await svc.call("POST", `/domains/${domain.id}/verify`), 422, "domain_not_verified");
    expect(error.details?.map((d) => d.method)).toEqual(["dns_txt", "http_file", "meta_tag"]);
    for (const detail of error.details ?? []) expect(String(detail.message).length).toBeGreaterThan(10);
    expect(String(error.details?.[0]?.message)).toContain("IP address");
    expect(String(error.details?.[1]?.message)).toContain("token");
    expect(String(error.details?.[2]?.message)).toContain("content");
    expect((await svc.call("GET", `/domains/${domain.id}`)).json.data.verified).toBe(false);
  });

  test("nothing listening and no DNS record: a reason per method", async () => {
    const s = await site({});
    const domain = await addDomain(s.host, `${s.origin}/`);
    await s.stop();
    const error = expectErrorEnvelope(await svc.call("POST", `/domains/${domain.id}/verify`), 422, "domain_not_verified");
    expect(error.details).toHaveLength(3);
    expect(String(error.details?.[1]?.message)).toMatch(/refused|connect/i);
    expect(String(error.details?.[2]?.message)).toMatch(/refused|connect/i);

    const named = await addDomain("nothing-here.test");
    const dnsError = expectErrorEnvelope(await svc.call("POST", `/domains/${named.id}/verify`), 422, "domain_not_verified");
    expect(String(dnsError.details?.[0]?.message)).toContain("_linkpatrol.nothing-here.test");
  });

  test("a verified domain is returned as it is; unknown and malformed ids: 404", async () => {
    const domain = await addDomain("already.test");
    dnsRecords["_linkpatrol.already.test"] = [[`linkpatrol-verify=${domain.verification.token}`]];
    const first = await svc.call("POST", `/domains/${domain.id}/verify`);
    expect(first.status).toBe(200);
    delete dnsRecords["_linkpatrol.already.test"];
    const again = await svc.call("POST", `/domains/${domain.id}/verify`);
    expect(again.status).toBe(200);
    expect(again.json.data.verified_at).toBe(first.json.data.verified_at);
    expectErrorEnvelope(await svc.call("POST", "/domains/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f/verify"), 404, "not_found");
    expectErrorEnvelope(await svc.call("POST", "/domains/xyz/verify"), 404, "not_found");
  });
});

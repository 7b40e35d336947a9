import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";

/**
 * Managing sites in the dashboard over real sockets: a pasted plain-HTTP URL keeps its scheme and path and
 * verifies; a bare host on a port that speaks only HTTP gets http and is told so; a verification that fails on
 * the scheme says so and offers the fix; the start page, schedule and ignore rules are edited, and a refused
 * form comes back with what was typed and the reason in plain words; a domain is deleted with its history after
 * a confirmation page; crawls started here are labelled as such; hostile text stays text.
 */

let svc: TestService;
let docs: LoopbackSite;
let plain: LoopbackSite;
let client: DashboardClient;
let token = "";

const html = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

beforeAll(async () => {
  svc = await startTestService();
  docs = await startLoopbackSite({
    "/docs/index.html": html(`<a href="/docs/a.html">a</a> <a href="/docs/missing.html">missing</a>`),
    "/docs/a.html": html(`<a href="/docs/index.html">home</a>`),
    "/.well-known/linkpatrol-verify.txt": () => (token === "" ? new Response("no", { status: 404 }) : new Response(`${token}\n`)),
  });
  plain = await startLoopbackSite({ "/": html("plain HTTP only") });
  client = await signedInClient(svc);
});
afterAll(async () => {
  await svc?.stop();
  await docs?.stop();
  await plain?.stop();
});

const idFrom = (location: string | null) => /^\/ui\/domains\/([0-9a-f-]{36})\?notice=/.exec(location ?? "")?.[1] ?? "";
const field = (html: string, id: string) => new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1];
const textarea = (html: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];

describe("adding a site", () => {
  let domainId = "";

  test("a pasted plain-HTTP URL keeps its scheme and start path, and verifies", async () => {
    const added = await client.post("/ui/domains", { name: docs.url("/docs/index.html"), root_url: "" });
    expect(added.status).toBe(303);
    expect(added.location).toMatch(/\?notice=added$/);
    domainId = idFrom(added.location);
    expect(await svc.runtime.domains.get(domainId)).toMatchObject({ name: docs.host, root_url: docs.url("/docs/index.html") });
    const page = await client.get(added.location!);
    expect(page.html).toContain(`Crawls begin at ${docs.url("/docs/index.html")}`);
    token = (await svc.runtime.domains.get(domainId)).verification.token;
    const verified = await client.post(`/ui/domains/${domainId}/verify`);
    expect(verified.status).toBe(303);
    expect(await svc.runtime.domains.get(domainId)).toMatchObject({ verified: true, verified_by: "http_file" });
  });

  test("a bare host whose port answers only plain HTTP gets http, and the page says so", async () => {
    const added = await client.post("/ui/domains", { name: plain.host, root_url: "" });
    expect(added.status).toBe(303);
    expect(added.location).toMatch(/\?notice=added-http$/);
    const id = idFrom(added.location);
    expect((await svc.runtime.domains.get(id)).root_url).toBe(plain.url("/"));
    const page = await client.get(added.location!);
    expect(page.html).toContain(`https://${plain.host}/ did not answer, but ${plain.origin}/ did: the start page is ${plain.url("/")}, over plain HTTP`);
    await svc.runtime.domains.delete(id);
  }, 20_000);

  test("a verification that fails on the scheme says so, in the API and on the page, with the start page to use", async () => {
    // Registered the API's way: a host alone means https://HOST/ (the contract), on a port that speaks HTTP.
    const created = await svc.call("POST", "/domains", { body: { name: plain.host } });
    expect(created.json.data.root_url).toBe(`https://${plain.host}/`);
    const id = created.json.data.id;
    const failed = expectErrorEnvelope(await svc.call("POST", `/domains/${id}/verify`), 422, "domain_not_verified");
    const hint = failed.details!.find((d) => d.field === "root_url")!;
    expect(hint.suggested_root_url).toBe(plain.url("/"));
    expect(String(hint.message)).toContain(`on https://${plain.host}/, but ${plain.origin}/ answers plain HTTP: use ${plain.url("/")} as the start page`);
    expect(failed.message).toContain("answers plain HTTP");

    const page = await client.post(`/ui/domains/${id}/verify`);
    expect(page.status).toBe(422);
    expect(page.html).toContain(`Start page: `);
    expect(page.html).toContain(`<input type="hidden" name="root_url" value="${plain.url("/")}"/>`);
    const fixed = await client.post(`/ui/domains/${id}/root`, { root_url: plain.url("/") });
    expect(fixed.status).toBe(303);
    expect((await svc.runtime.domains.get(id)).root_url).toBe(plain.url("/"));
    await svc.runtime.domains.delete(id);
  }, 30_000);

  test("a refused site is shown again with both fields as typed and the reason in words", async () => {
    const refused = await client.post("/ui/domains", { name: docs.url("/other/"), root_url: "" });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("The site was not added: domain");
    expect(field(refused.html, "domain-name")).toBe(docs.url("/other/"));
    const bad = await client.post("/ui/domains", { name: "ftp://files.example/", root_url: "https://x.example/" });
    expect(bad.status).toBe(422);
    expect(field(bad.html, "domain-name")).toBe("ftp://files.example/");
    expect(field(bad.html, "domain-root")).toBe("https://x.example/");
  });

  describe("editing a domain", () => {
    test("the start page moves within the host; another host is refused with the typed URL kept", async () => {
      const moved = await client.post(`/ui/domains/${domainId}/root`, { root_url: docs.url("/docs/a.html") });
      expect(moved.status).toBe(303);
      expect((await svc.runtime.domains.get(domainId)).root_url).toBe(docs.url("/docs/a.html"));
      expect((await client.get(moved.location!)).html).toContain(`Start page saved: crawls begin at ${docs.url("/docs/a.html")}`);
      const refused = await client.post(`/ui/domains/${domainId}/root`, { root_url: "http://elsewhere.example/docs/" });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain("The start page was not saved.");
      expect(refused.html).toContain("<li>Start page: must be on the domain&#39;s own host and port");
      expect(field(refused.html, "root-url")).toBe("http://elsewhere.example/docs/");
      expect((await svc.runtime.domains.get(domainId)).root_url).toBe(docs.url("/docs/a.html"));
      await client.post(`/ui/domains/${domainId}/root`, { root_url: docs.url("/docs/index.html") });
    });

    test("a schedule with a bad time zone comes back with the cron and the zone as typed, and one plain reason", async () => {
      const refused = await client.post(`/ui/domains/${domainId}/schedule`, { cron: "15 4 * * 1", timezone: "Europe/Berlinn", action: "set" });
      expect(refused.status).toBe(400);
      expect(field(refused.html, "cron")).toBe("15 4 * * 1");
      expect(field(refused.html, "timezone")).toBe("Europe/Berlinn");
      expect(refused.html).toContain("The schedule was not saved.");
      expect(refused.html).toContain("<li>Time zone: unknown time zone");
      expect(refused.html).not.toContain("field:");
      const saved = await client.post(`/ui/domains/${domainId}/schedule`, { cron: "15 4 * * 1", timezone: "Europe/Berlin", action: "set" });
      expect(saved.status).toBe(303);
      expect(await svc.runtime.domains.get(domainId)).toMatchObject({ schedule: "15 4 * * 1", schedule_timezone: "Europe/Berlin" });
    });

    test("ignore rules are saved from the text areas; a bad line is named and everything typed is kept", async () => {
      const refused = await client.post(`/ui/domains/${domainId}/rules`, { exclude: "/private/\r\n(oops\n", mute: "\\.pdf$" });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain("The ignore rules were not saved.");
      expect(refused.html).toContain("<li>Not checked, line 2: &quot;(oops&quot; is not a regular expression");
      expect(textarea(refused.html, "rules-exclude")).toBe("/private/\r\n(oops");
      expect(textarea(refused.html, "rules-mute")).toBe("\\.pdf$");
      const saved = await client.post(`/ui/domains/${domainId}/rules`, { exclude: " /private/ \n\n", mute: "/docs/missing" });
      expect(saved.status).toBe(303);
      expect((await svc.runtime.domains.get(domainId)).ignore_rules).toEqual({ exclude: ["/private/"], mute: ["/docs/missing"] });
    });

    test("a crawl started here is labelled as started from the dashboard and runs with the rules", async () => {
      const started = await client.post(`/ui/domains/${domainId}/crawls`, {});
      expect(started.status).toBe(303);
      const crawlId = started.location!.split("/").pop()!;
      const crawl = await waitForCrawl(svc, crawlId);
      expect(crawl).toMatchObject({ trigger: "dashboard", broken_links: 0, options: { ignore_rules: { exclude: ["/private/"], mute: ["/docs/missing"] } } });
      const page = await client.get(`/ui/crawls/${crawlId}`);
      expect(page.html).toContain("started from the dashboard");
      expect(page.html).not.toContain("(api)");
      expect(page.html).toContain("Ignore rules of this crawl");
    }, 30_000);
  });

  test("delete asks on a page of its own, then removes the domain and its crawls", async () => {
    const crawlIds = (await svc.runtime.crawls.list({ domainId }, 1, 100)).items.map((crawl) => crawl.id);
    expect(crawlIds.length).toBe(1);
    const ask = await client.get(`/ui/domains/${domainId}/delete`);
    expect(ask.status).toBe(200);
    expect(ask.html).toContain("with its 1 crawl, every link they found");
    expect((await svc.runtime.domains.list(1, 100)).items.map((d) => d.id)).toContain(domainId);
    const deleted = await client.post(`/ui/domains/${domainId}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/?notice=deleted");
    expect((await client.get("/?notice=deleted")).html).toContain("Domain deleted, with its crawls and their results.");
    expect((await client.get(`/ui/domains/${domainId}`)).status).toBe(404);
    const rows = svc.runtime.store
      .sqlite!.query("SELECT (SELECT count(*) FROM crawls WHERE domain_id = ?1) + (SELECT count(*) FROM links WHERE crawl_id = ?2) AS n")
      .get(domainId, crawlIds[0]!) as { n: number };
    expect(rows.n).toBe(0);
  });
});

describe("hostile text in what a user types", () => {
  test("a root URL, rules and a refused name render as text", async () => {
    const added = await client.post("/ui/domains", { name: docs.url(`/docs/index.html?q="><script>alert(1)</script>`), root_url: "" });
    expect(added.status).toBe(303);
    const id = idFrom(added.location);
    await client.post(`/ui/domains/${id}/rules`, { exclude: `"><script>alert(2)</script>`, mute: `<img src=x onerror=alert(3)>` });
    const page = await client.get(`/ui/domains/${id}`);
    const refused = await client.post("/ui/domains", { name: `"><script>alert(4)</script>`, root_url: `'"><svg onload=alert(5)>` });
    for (const html of [page.html, refused.html]) {
      expect(html).not.toMatch(/<script>alert|<img src=x|<svg onload/);
      expect(html).not.toMatch(/onerror=alert\(3\)>(?!<\/textarea>)/);
    }
    expect(page.html).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(refused.html).toContain("&quot;&gt;&lt;script&gt;alert(4)&lt;/script&gt;");
    await svc.runtime.domains.delete(id);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * A domain's ignore rules over real sockets: an `exclude` pattern is never requested (the site's own request log
 * says so, redirect hops and sitemap entries included) nor recorded, and is counted in `excluded_links`; a `mute`
 * pattern is checked and stored, but its broken link is not counted nor listed as broken. A crawl keeps the rules
 * it was created with, whatever is edited while it runs. Bad patterns are refused with 400 naming each.
 */

const html = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

let svc: TestService;
let site: LoopbackSite;
let domainId: string;
/** While set, /held/ waits for it: a crawl starting there stays running until the test releases it. */
let hold: Promise<void> | null = null;
let releaseHeld: () => void = () => {};

/** Makes the next requests of /held/ wait until releaseHeld(). */
function holdHeldPage(): void {
  hold = new Promise<void>((resolve) => (releaseHeld = resolve));
}

beforeAll(async () => {
  svc = await startTestService();
  site = await startLoopbackSite({
    "/": html(`<a href="/a">A</a> <a href="/private/x">private</a> <a href="/old">old</a> <a href="/missing">missing</a> <a href="/jump">jump</a>`),
    "/a": html(`<a href="/private/x">private again</a> <a href="/old">old again</a> <a href="/">home</a>`),
    "/old": { status: 404, body: "gone for good" },
    "/jump": { status: 302, headers: { location: "/private/after-redirect" } },
    "/robots.txt": { body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } },
    "/sitemap.xml": (_request, self) =>
      new Response(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${self.url("/private/listed")}</loc></url><url><loc>${self.url("/a")}</loc></url></urlset>`,
        { headers: { "content-type": "application/xml" } },
      ),
    "/held/": async () => {
      if (hold !== null) await hold;
      return new Response(`<a href="/held/private/y">private</a> <a href="/held/ok">ok</a>`, { headers: { "content-type": "text/html" } });
    },
    "/held/ok": html("fine"),
  });
  domainId = await verifiedDomain(svc, site.url("/"));
});
afterAll(async () => {
  releaseHeld();
  await svc?.stop();
  await site?.stop();
});

const requested = (prefix: string) => site.requests.filter((line) => line.split(" ")[1]!.startsWith(prefix));

describe("ignore rules", () => {
  test("PATCH stores them and GET shows them; a list left out is empty", async () => {
    const res = await svc.call("PATCH", `/domains/${domainId}`, { body: { ignore_rules: { exclude: ["/private/"] } } });
    expect(res.status).toBe(200);
    expect(res.json.data.ignore_rules).toEqual({ exclude: ["/private/"], mute: [] });
    const set = await svc.call("PATCH", `/domains/${domainId}`, { body: { ignore_rules: { exclude: ["/private/"], mute: ["/old$"] } } });
    expect(set.json.data.ignore_rules).toEqual({ exclude: ["/private/"], mute: ["/old$"] });
    expect((await svc.call("GET", `/domains/${domainId}`)).json.data.ignore_rules).toEqual({ exclude: ["/private/"], mute: ["/old$"] });
  });

  test("an excluded URL is never requested nor recorded; a muted broken link is checked but not counted broken", async () => {
    const crawlId = await startCrawl(svc, domainId, { use_sitemap: true });
    const crawl = await waitForCrawl(svc, crawlId);
    expect(crawl.status).toBe("completed");
    expect(requested("/private")).toEqual([]);
    // Checked all the same: the muted URL was asked.
    expect(requested("/old").length).toBeGreaterThan(0);

    // Two pages link /private/x, one sitemap lists /private/listed.
    expect(crawl.excluded_links).toBe(3);
    expect(crawl.options.ignore_rules).toEqual({ exclude: ["/private/"], mute: ["/old$"] });

    const links = await readAll(svc, `/crawls/${crawlId}/links`);
    expect(links.some((link) => link.url.includes("/private/"))).toBe(false);
    const old = links.filter((link) => link.url === site.url("/old"));
    expect(old).toHaveLength(2);
    for (const link of old) {
      expect(link).toMatchObject({ status_code: 404, is_broken: false });
      expect(link.warning).toContain('muted by ignore rule "/old$"');
    }
    const jump = links.find((link) => link.url === site.url("/jump"))!;
    expect(jump.warning).toContain('the ignore rule "/private/" excludes');

    const broken = await readAll(svc, `/crawls/${crawlId}/broken`);
    expect(broken.map((link) => link.url)).toEqual([site.url("/missing")]);
    expect(crawl.broken_links).toBe(1);
    expect((await svc.call("GET", `/crawls/${crawlId}/links?is_broken=true`)).json.meta.total).toBe(1);
  }, 30_000);

  test("a crawl keeps the rules it was created with: an edit while it runs changes nothing in it", async () => {
    const moved = await svc.call("PATCH", `/domains/${domainId}`, { body: { root_url: site.url("/held/"), ignore_rules: { exclude: ["/private/"] } } });
    expect(moved.json.data.root_url).toBe(site.url("/held/"));
    holdHeldPage();
    const crawlId = await startCrawl(svc, domainId);
    // Bounded: the held page is asked within a few seconds of the start.
    for (let i = 0; i < 200 && requested("/held/").length === 0; i++) await Bun.sleep(25);
    expect(requested("/held/")).toHaveLength(1);
    const edited = await svc.call("PATCH", `/domains/${domainId}`, { body: { ignore_rules: null } });
    expect(edited.json.data.ignore_rules).toEqual({ exclude: [], mute: [] });
    releaseHeld();
    const crawl = await waitForCrawl(svc, crawlId);
    expect(crawl.status).toBe("completed");
    expect(requested("/held/private")).toEqual([]);
    expect(crawl.excluded_links).toBe(1);
    expect(crawl.options.ignore_rules).toEqual({ exclude: ["/private/"], mute: [] });
  }, 30_000);

  test("the start page cannot move while a crawl of the domain runs", async () => {
    holdHeldPage();
    const asked = requested("/held/").length;
    const crawlId = await startCrawl(svc, domainId);
    for (let i = 0; i < 200 && requested("/held/").length === asked; i++) await Bun.sleep(25);
    const moved = await svc.call("PATCH", `/domains/${domainId}`, { body: { root_url: site.url("/") } });
    expect(expectErrorEnvelope(moved, 409, "crawl_in_progress").details).toEqual([{ field: "domain_id", crawl_id: crawlId }]);
    releaseHeld();
    await waitForCrawl(svc, crawlId);
    hold = null;
    expect((await svc.call("PATCH", `/domains/${domainId}`, { body: { root_url: site.url("/") } })).json.data.root_url).toBe(site.url("/"));
  }, 30_000);

  test.each([
    [{ exclude: ["(unclosed"] }, "ignore_rules.exclude.0", "not a regular expression"],
    [{ mute: ["ok", "[z-a]"] }, "ignore_rules.mute.1", "not a regular expression"],
    [{ exclude: ["(a+)+$"] }, "ignore_rules.exclude.0", "exponential"],
    [{ exclude: [""] }, "ignore_rules.exclude.0", ""],
    [{ exclude: "not a list" }, "ignore_rules.exclude", ""],
    [{ skip: ["x"] }, "ignore_rules.skip", "unknown field"],
    [{ exclude: ["^http://"] }, "ignore_rules.exclude", "would exclude the start page"],
  ])("PATCH with ignore_rules %j: 400 naming %s", async (rules, field, message) => {
    const before = (await svc.call("GET", `/domains/${domainId}`)).json.data.ignore_rules;
    const res = await svc.call("PATCH", `/domains/${domainId}`, { body: { ignore_rules: rules } });
    const error = expectErrorEnvelope(res, 400, "invalid_request");
    const detail = error.details!.find((d) => d.field === field);
    expect(detail, JSON.stringify(error.details)).toBeDefined();
    expect(String(detail!.message)).toContain(message);
    expect((await svc.call("GET", `/domains/${domainId}`)).json.data.ignore_rules).toEqual(before);
  });
});

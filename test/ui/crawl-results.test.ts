import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";
import { PAYLOAD_TEXTS } from "./xss-payloads.ts";
import { forEachStore } from "../helpers/stores.ts";
import { parseCsv } from "../helpers/csv.ts";

/**
 * Results at scale on the crawl page, over real sockets: columns sorted both ways (and kept across pages and
 * filters), numbered pages at their boundaries, a target's 60 linking pages all reachable, hosts summarised
 * (two dead external hosts, each a closed loopback port), status classes, filtered downloads that hold exactly
 * the rows of the filtered table, hostile texts and URLs escaped, odd query values ignored.
 */

forEachStore("the crawl page's results", (store) => {
  const SOURCES = 60;
  /** Broken targets linked once each: exactly one page of 50, or two of 25. */
  const SINGLES = 50;
  const LONG_PATH = `/long-${"a".repeat(1500)}`;
  const BIDI = "\u202Eevil\u202C text";

  let svc: TestService;
  let site: LoopbackSite;
  let wall: LoopbackSite;
  let client: DashboardClient;
  let crawlId: string;
  let deadHost1: string;
  let deadHost2: string;
  let brokenApi: any[];

  const escapeHtml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
  const page = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

  /** A loopback port nothing listens on any more: connections to it are refused. */
  async function closedOrigin(): Promise<string> {
    const gone = await startLoopbackSite({});
    const origin = new URL(gone.url("/")).origin;
    await gone.stop();
    return origin;
  }

  beforeAll(async () => {
    svc = await startTestService({}, { store });
    const dead1 = await closedOrigin();
    const dead2 = await closedOrigin();
    deadHost1 = new URL(dead1).host;
    deadHost2 = new URL(dead2).host;
    wall = await startLoopbackSite({ "/bot": { status: 403, body: "no bots" } });
    const hostile = PAYLOAD_TEXTS.map((text, i) => `<a href="/missing-${i}">${escapeHtml(text)}</a>`).join("");
    const singles = Array.from({ length: SINGLES }, (_, i) => `<a href="/only-${String(i).padStart(2, "0")}">only ${i}</a>`).join("");
    const sources = Array.from({ length: SOURCES }, (_, i) => `<a href="/src/${i}">src ${i}</a>`).join("");
    const routes: Record<string, { body: string } | { status: number; body: string }> = {
      "/": page(
        `<a href="/hub">hub</a><a href="/e500">e500</a><a href="/e503">e503</a><a href="${dead1}/x1">x1</a><a href="${dead1}/x2">x2</a>` +
          `<a href="${dead2}/y1">y1</a><a href="${wall.url("/bot")}">bot</a>${hostile}<a href="${LONG_PATH}">long</a>` +
          `<a href="/q?x=${escapeHtml('"><script>alert("query")</script>')}">${escapeHtml(BIDI)}</a>${singles}`,
      ),
      "/hub": page(sources),
      "/e500": { status: 500, body: "boom" },
      "/e503": { status: 503, body: "busy" },
    };
    for (let i = 0; i < SOURCES; i++)
      routes[`/src/${i}`] = page(`<a href="/target60">to 60 from ${i} ${escapeHtml('<script>alert("s")</script>')}</a><a href="${dead1}/x1">x1</a>`);
    site = await startLoopbackSite(routes);
    const domainId = await verifiedDomain(svc, site.url("/"));
    crawlId = await startCrawl(svc, domainId, { follow_external: true });
    await waitForCrawl(svc, crawlId, 60_000);
    client = await signedInClient(svc);
    brokenApi = await readAll(svc, `/crawls/${crawlId}/broken`);
  }, 90_000);

  afterAll(async () => {
    await svc.stop();
    await site.stop();
    await wall.stop();
  });

  interface Row {
    id: number;
    url: string;
    host: string;
    status: number;
    links: number;
  }

  /** The target rows of a crawl page, in order. */
  function rows(html: string): Row[] {
    return [
      ...html.matchAll(
        /<tr class="broken-target" data-target-id="(\d+)"><td><a class="url" href="([^"]+)"[^>]*>.*?<td class="host">([^<]*)<\/td><td><span class="[^"]*" data-status="(\d+)">.*?<td class="num">(\d+)<\/td>/g,
      ),
    ].map((m) => ({ id: Number(m[1]), url: m[2]!.replaceAll("&amp;", "&"), host: m[3]!, status: Number(m[4]), links: Number(m[5]) }));
  }

  function position(html: string): { page: number; pages: number } {
    const m = /<span class="page-position">Page (\d+) of (\d+)<\/span>/.exec(html);
    if (m === null) throw new Error("no page position");
    return { page: Number(m[1]), pages: Number(m[2]) };
  }

  /** The pager link `rel=name` of a page (first, prev, next, last), decoded; undefined when there is none. */
  const rel = (html: string, name: string) => [...html.matchAll(/<a href="([^"]+)" rel="([^"]+)">/g)].find((m) => m[2] === name)?.[1]?.replaceAll("&amp;", "&");

  /** Every row of a listing from `path` on, following "Next" (bounded). */
  async function allRows(path: string): Promise<Row[]> {
    const found: Row[] = [];
    let next: string | undefined = path;
    for (let i = 0; i < 20 && next !== undefined; i++) {
      const answer = await client.get(next);
      expect(answer.status).toBe(200);
      found.push(...rows(answer.html));
      next = rel(answer.html, "next");
    }
    return found;
  }

  const base = () => `/ui/crawls/${crawlId}`;
  const hostOf = (url: string) => new URL(url).host;

  describe("sorting", () => {
    const compare: Record<string, (a: Row, b: Row) => number> = {
      url: (a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0),
      host: (a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0),
      status: (a, b) => a.status - b.status,
      links: (a, b) => a.links - b.links,
    };

    for (const column of Object.keys(compare)) {
      for (const dir of ["asc", "desc"] as const) {
        test(`by ${column} ${dir}: every page in order, the target id breaking ties, the same rows across pages of 25 as on one page of 200`, async () => {
          const one = rows((await client.get(`${base()}?sort=${column}&dir=${dir}&size=200`)).html);
          expect(one.length).toBe(new Set(brokenApi.map((link) => link.url)).size);
          const sign = dir === "asc" ? 1 : -1;
          const expected = [...one].sort((a, b) => sign * compare[column]!(a, b) || a.id - b.id);
          expect(one.map((r) => r.id)).toEqual(expected.map((r) => r.id));
          const paged = await allRows(`${base()}?sort=${column}&dir=${dir}&size=25`);
          expect(paged.map((r) => r.id)).toEqual(one.map((r) => r.id));
        }, 30_000);
      }
    }

    test("the sort survives filtering: the filter form carries it, and the header says which way", async () => {
      const answer = await client.get(`${base()}?sort=links&dir=desc&class=4xx`);
      expect(answer.html).toContain('<input type="hidden" name="sort" value="links"/>');
      expect(answer.html).toContain('<input type="hidden" name="dir" value="desc"/>');
      expect(answer.html).toMatch(/<th scope="col" class="num" aria-sort="descending"><a href="[^"]*sort=links[^"]*" data-sort="links">Links ▼/);
      const found = rows(answer.html);
      expect(found[0]!.url).toBe(site.url("/target60"));
      expect(found.every((r) => r.status >= 400 && r.status < 500)).toBe(true);
    });
  });

  describe("numbered pages", () => {
    test("no rows: page 1 of 1, nowhere to go", async () => {
      const answer = await client.get(`${base()}?q=nothing-matches-this`);
      expect(rows(answer.html)).toEqual([]);
      expect(position(answer.html)).toEqual({ page: 1, pages: 1 });
      expect(answer.html).toContain("0 broken targets match the filters.");
      for (const name of ["first", "prev", "next", "last"]) expect(rel(answer.html, name)).toBeUndefined();
    });

    test("exactly one full page: 50 rows, page 1 of 1", async () => {
      const answer = await client.get(`${base()}?q=%2Fonly-`);
      expect(rows(answer.html)).toHaveLength(SINGLES);
      expect(position(answer.html)).toEqual({ page: 1, pages: 1 });
      expect(rel(answer.html, "next")).toBeUndefined();
    });

    test("two full pages of 25: the last page is full, has First/Previous and no Next/Last; a page past the end shows the last", async () => {
      const first = await client.get(`${base()}?q=%2Fonly-&size=25`);
      expect(position(first.html)).toEqual({ page: 1, pages: 2 });
      expect(rel(first.html, "prev")).toBeUndefined();
      const last = rel(first.html, "last")!;
      expect(last).toContain("page=2");
      const lastPage = await client.get(last);
      expect(position(lastPage.html)).toEqual({ page: 2, pages: 2 });
      expect(rows(lastPage.html)).toHaveLength(25);
      expect(rel(lastPage.html, "next")).toBeUndefined();
      expect(rel(lastPage.html, "first")).toBeDefined();
      const past = await client.get(`${base()}?q=%2Fonly-&size=25&page=99`);
      expect(position(past.html)).toEqual({ page: 2, pages: 2 });
      expect(rows(past.html).map((r) => r.id)).toEqual(rows(lastPage.html).map((r) => r.id));
      const all = [...rows(first.html), ...rows(lastPage.html)].map((r) => r.url);
      expect(new Set(all).size).toBe(SINGLES);
    });
  });

  describe("every linking page of a target", () => {
    test("a target linked from 60 pages: all 60 reachable in pages of 25, sorted both ways", async () => {
      const main = await client.get(`${base()}?q=target60`);
      const href = /<a class="all-sources" href="([^"]+)">All 60 linking pages<\/a>/.exec(main.html)?.[1];
      expect(href).toBeDefined();
      const sourcesOf = (html: string) => [...html.matchAll(/<tr class="source-row"><td><a class="url" href="([^"]+)"/g)].map((m) => m[1]!);
      for (const dir of ["asc", "desc"]) {
        const seen: string[] = [];
        let next: string | undefined = `${href!.replaceAll("&amp;", "&")}&sort=source&dir=${dir}&size=25`;
        for (let i = 0; i < 10 && next !== undefined; i++) {
          const answer = await client.get(next);
          expect(answer.status).toBe(200);
          if (i === 0) expect(position(answer.html)).toEqual({ page: 1, pages: 3 });
          seen.push(...sourcesOf(answer.html));
          next = rel(answer.html, "next");
        }
        expect(seen).toHaveLength(SOURCES);
        const expected = Array.from({ length: SOURCES }, (_, i) => site.url(`/src/${i}`)).sort();
        expect(seen).toEqual(dir === "asc" ? expected : expected.reverse());
      }
    }, 30_000);

    test("a target id that is not a number, or not of this crawl, is a 404", async () => {
      expect((await client.get(`${base()}/targets/abc`)).status).toBe(404);
      expect((await client.get(`${base()}/targets/99999999`)).status).toBe(404);
    });
  });

  describe("hosts and status classes", () => {
    test("the host summary counts each host's broken targets and links as the API's broken links do; its links filter to the host", async () => {
      const answer = await client.get(base());
      const summary = [
        ...answer.html.matchAll(/<tr class="host-row"><td>(?:<a href="([^"]+)">)?([^<]+)<.*?<td class="num">(\d+)<\/td><td class="num">(\d+)<\/td>/g),
      ].map((m) => ({
        href: m[1]?.replaceAll("&amp;", "&"),
        host: m[2]!,
        targets: Number(m[3]),
        links: Number(m[4]),
      }));
      const expected = new Map<string, { targets: Set<string>; links: number }>();
      for (const link of brokenApi) {
        const entry = expected.get(hostOf(link.url)) ?? { targets: new Set(), links: 0 };
        entry.targets.add(link.url);
        entry.links++;
        expected.set(hostOf(link.url), entry);
      }
      expect(new Map(summary.map((s) => [s.host, { targets: s.targets, links: s.links }]))).toEqual(
        new Map([...expected].map(([host, e]) => [host, { targets: e.targets.size, links: e.links }])),
      );
      expect(summary.find((s) => s.host === deadHost1)).toMatchObject({ targets: 2, links: SOURCES + 2 });
      expect(summary.find((s) => s.host === deadHost2)).toMatchObject({ targets: 1, links: 1 });
      const filtered = rows((await client.get(summary.find((s) => s.host === deadHost1)!.href!)).html);
      expect(filtered.map((r) => r.url).sort()).toEqual([`http://${deadHost1}/x1`, `http://${deadHost1}/x2`]);
    });

    test("status classes: 4xx, 5xx, network errors, warnings; they combine with the host filter", async () => {
      const urls = async (query: string) =>
        rows((await client.get(`${base()}?${query}&size=200`)).html)
          .map((r) => r.url)
          .sort();
      const byStatus = (keep: (status: number) => boolean) => [...new Set(brokenApi.filter((l) => keep(l.status_code)).map((l) => l.url))].sort();
      expect(await urls("class=4xx")).toEqual(byStatus((s) => s >= 400 && s < 500));
      expect(await urls("class=5xx")).toEqual([site.url("/e500"), site.url("/e503")]);
      expect(await urls("class=network")).toEqual([`http://${deadHost1}/x1`, `http://${deadHost1}/x2`, `http://${deadHost2}/y1`].sort());
      expect(await urls(`class=network&host=${encodeURIComponent(deadHost2)}`)).toEqual([`http://${deadHost2}/y1`]);
      const warned = await client.get(`${base()}?class=warning`);
      expect(rows(warned.html).map((r) => r.url)).toEqual([wall.url("/bot")]);
      expect(warned.html).toContain("1 target with a warning match the filters.");
      const bot = rows(warned.html)[0]!;
      const sources = await client.get(`${base()}/targets/${bot.id}?class=warning`);
      expect(sources.html).toContain(`href="${site.url("/")}"`);
    });
  });

  describe("downloads of the filtered view", () => {
    for (const query of ["class=network", "class=4xx&scope=internal", `host=${"__HOST1__"}`, "class=warning", "q=only-1"]) {
      test(`${query}: CSV, JSON and JSONL hold exactly the links of the filtered table's rows, all pages`, async () => {
        const q = query.replace("__HOST1__", encodeURIComponent(deadHost1));
        const table = await allRows(`${base()}?${q}&size=25`);
        expect(table.length).toBeGreaterThan(0);
        const targetUrls = table.map((r) => r.url).sort();
        const linkCount = table.reduce((sum, r) => sum + r.links, 0);

        const csv = await client.get(`${base()}/report.csv?${q}`);
        expect(csv.status).toBe(200);
        const [head, ...records] = parseCsv(csv.html);
        expect(head).toEqual(["source_url", "url", "status_code", "is_broken", "kind", "link_text", "final_url", "error", "warning", "broken_since"]);
        expect(records).toHaveLength(linkCount);
        expect([...new Set(records.map((r) => r[1]!))].sort()).toEqual(targetUrls);

        const json = JSON.parse((await client.get(`${base()}/report.json?${q}`)).html);
        expect(json.links).toHaveLength(linkCount);
        expect([...new Set(json.links.map((l: any) => l.url))].sort()).toEqual(targetUrls);
        expect(json.summary.reported_links).toBe(linkCount);
        expect(json.orphans).toBeUndefined();

        const jsonl = await client.get(`${base()}/report.jsonl?${q}`);
        expect(jsonl.headers.get("content-type")).toStartWith("application/jsonl");
        const lines = jsonl.html
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        const links = lines.filter((l) => l.type === "link");
        expect(links).toHaveLength(linkCount);
        expect(links.map(({ type: _t, ...l }) => l)).toEqual(json.links);
        expect(lines.at(-1).type).toBe("summary");
      }, 30_000);
    }

    test("without filters the download is the whole crawl, as before", async () => {
      const json = JSON.parse((await client.get(`${base()}/report.json?sort=links&page=2`)).html);
      expect(json.links).toHaveLength((await svc.runtime.crawls.get(crawlId)).total_links);
    });
  });

  describe("hostile texts and odd query values", () => {
    test("link texts, URLs and hosts are escaped in the table, the host summary and the linking pages", async () => {
      const main = await client.get(`${base()}?size=200`);
      const target = rows(main.html).find((r) => r.url === site.url("/missing-0"))!;
      const sources = await client.get(`${base()}/targets/${target.id}`);
      const target60 = rows(main.html).find((r) => r.url === site.url("/target60"))!;
      const sixty = await client.get(`${base()}/targets/${target60.id}?sort=text&dir=desc`);
      for (const html of [main.html, sources.html, sixty.html]) {
        expect(html).not.toContain("<script>alert");
        expect(html).not.toContain("<img src=x");
        expect(html).not.toContain("<svg onload");
      }
      expect(sources.html).toContain("&lt;script&gt;alert(&quot;text&quot;)&lt;/script&gt;");
      expect(sixty.html).toContain("&lt;script&gt;alert(&quot;s&quot;)&lt;/script&gt;");
      const long = rows(main.html).find((r) => r.url.includes("/long-"))!;
      expect(long.url).toBe(site.url(LONG_PATH));
      expect(main.html).toContain("%22%3E%3Cscript%3Ealert(%22query%22)%3C/script%3E");
    });

    test("sort, direction, page, size, class, status, kind, scope and a target id that make no sense are ignored, never a 500", async () => {
      const plain = rows((await client.get(base())).html);
      const odd = `sort=${encodeURIComponent("url;DROP TABLE links")}&dir=sideways&size=7&page=-3&class=6xx&status=abc&kind=x&scope=y&host=&q=`;
      const answer = await client.get(`${base()}?${odd}`);
      expect(answer.status).toBe(200);
      expect(rows(answer.html).map((r) => r.id)).toEqual(plain.map((r) => r.id));
      expect((await client.get(`${base()}?page=${"9".repeat(40)}&size=1e3&sort[]=x`)).status).toBe(200);
      expect((await client.get(`${base()}/report.csv?${odd}`)).status).toBe(200);
      const target = plain[0]!;
      expect((await client.get(`${base()}/targets/${target.id}?${odd}`)).status).toBe(200);
    });
  });
});

import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * When an incremental audit must read pages in full after all (docs/decisions.md, "Incremental audits"): the
 * previous crawl pruned, cut short (cancelled) or run with other options; and when a 304 cannot stand for the
 * stored page (after a redirect, or with the stored links gone): the page is asked again without validators.
 */

const HOSTILE = `&lt;script&gt;alert("x")&lt;/script&gt; it's \u202Eevil`;
/** Each page answers 304 to its own ETag; `/r` redirects to `/q` once `lie` is on, and `/q` answers 304 to any validator. */
let lie = false;
let hold: Promise<void> | null = null;
let site: LoopbackSite;
let svc: TestService;

function page(body: string, etag: string): (request: Request) => Response {
  return (request) =>
    request.headers.get("if-none-match") === etag
      ? new Response(null, { status: 304, headers: { etag } })
      : new Response(body, { headers: { etag, "content-type": "text/html" } });
}

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": page(`<a href="/p">${HOSTILE}</a> <a href="/r">R</a> <a href="/slow">slow</a> <a href="/p?${"x".repeat(3000)}">long</a>`, '"root"'),
    "/p": page(`<a href="/">Home</a> <a href="/p-link">P link</a>`, '"p"'),
    "/r": (request) => (lie ? new Response(null, { status: 302, headers: { location: "/q" } }) : page(`<a href="/r-link">R link</a>`, '"r"')(request)),
    "/q": (request) =>
      request.headers.get("if-none-match") !== null
        ? new Response(null, { status: 304 })
        : new Response(`<a href="/q-link">Q link</a>`, { headers: { "content-type": "text/html" } }),
    "/slow": async () => {
      await hold;
      return new Response("<p>slow</p>", { headers: { "content-type": "text/html" } });
    },
    "/p-link": { body: "ok", headers: { "content-type": "text/plain" } },
    "/r-link": { body: "ok", headers: { "content-type": "text/plain" } },
    "/q-link": { body: "ok", headers: { "content-type": "text/plain" } },
  });
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});
beforeEach(() => {
  lie = false;
});

/** How many requests since `from` carried a validator. */
function conditionalSince(from: number): number {
  return site.requestHeaders.slice(from).filter((headers) => headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined).length;
}

let current: string | null = null;
/** The site's domain with no crawl history: the previous test's is deleted with its crawls. */
async function freshDomain(): Promise<string> {
  if (current !== null) expect((await svc.call("DELETE", `/domains/${current}`)).status).toBe(204);
  current = await verifiedDomain(svc, site.url("/"));
  return current;
}

async function crawl(domainId: string, options: Record<string, boolean> = {}): Promise<any> {
  return waitForCrawl(svc, await startCrawl(svc, domainId, options), 30_000);
}

test("the previous crawl pruned by retention: every page is read in full", async () => {
  const domainId = await freshDomain();
  expect((await crawl(domainId)).status).toBe("completed");
  expect(await svc.runtime.retention.removeEndedCrawlsOf(domainId)).toBe(1);
  const from = site.requests.length;
  const second = await crawl(domainId);
  expect(second).toMatchObject({ status: "completed", pages_crawled: 4, pages_reused: 0 });
  expect(conditionalSince(from)).toBe(0);
  // And the crawl after it reuses what this one read.
  const third = await crawl(domainId);
  expect(third).toMatchObject({ status: "completed", pages_crawled: 4, pages_reused: 4 });
}, 60_000);

test("only a completed crawl counts: after a cancelled one, pages are read in full", async () => {
  const domainId = await freshDomain();
  let release = () => {};
  hold = new Promise((resolve) => (release = resolve));
  const id = await startCrawl(svc, domainId);
  // The other pages are read (and stored with their validators) while /slow is held.
  for (let i = 0; i < 400 && (await svc.call("GET", `/crawls/${id}`)).json.data.pages_crawled < 3; i++) await Bun.sleep(25);
  expect((await svc.call("POST", `/crawls/${id}/cancel`)).status).toBe(200);
  release();
  const from = site.requests.length;
  const next = await crawl(domainId);
  expect(next).toMatchObject({ status: "completed", pages_reused: 0 });
  expect(conditionalSince(from)).toBe(0);
}, 60_000);

test("a previous crawl with other options: pages are read in full", async () => {
  const domainId = await freshDomain();
  expect((await crawl(domainId)).status).toBe("completed");
  const from = site.requests.length;
  expect(await crawl(domainId, { scan_images: true })).toMatchObject({ status: "completed", pages_reused: 0 });
  expect(conditionalSince(from)).toBe(0);
  // Same options again: covered.
  expect(await crawl(domainId, { scan_images: true })).toMatchObject({ status: "completed", pages_reused: 4 });
}, 60_000);

test("a 304 that cannot stand for the stored page is asked again without validators, and read", async () => {
  const domainId = await freshDomain();
  const first = await crawl(domainId);
  expect(first.status).toBe("completed");
  // The stored links of /p go (as if pruned under the crawl), and /r now redirects to a page that lies.
  svc.runtime.store.sqlite!.query("DELETE FROM links WHERE crawl_id = ?1 AND source_url = ?2").run(first.id, site.url("/p"));
  lie = true;
  const from = site.requests.length;
  const second = await crawl(domainId);
  // "/" and /slow reused; /p and /q read (/r is now a redirect, its end the page /q).
  expect(second).toMatchObject({ status: "completed", pages_reused: 2, pages_crawled: 4 });
  const asked = site.requests.slice(from);
  expect(asked.filter((line) => line === "GET /p")).toHaveLength(2);
  expect(asked.filter((line) => line === "GET /q")).toHaveLength(2);
  const links = (await readAll(svc, `/crawls/${second.id}/links`)).map((link) => `${link.source_url} ${link.url} ${link.status_code} ${link.link_text}`);
  expect(links).toContain(`${site.url("/p")} ${site.url("/p-link")} 200 P link`);
  expect(links).toContain(`${site.url("/q")} ${site.url("/q-link")} 200 Q link`);
  expect(links).toContain(`${site.url("/")} ${site.url("/r")} 200 R`);
  expect(links).toContain(`${site.url("/")} ${site.url("/p")} 200 <script>alert("x")</script> it's ⟨U+202E⟩evil`);
  // The uncheckable long href of the reused "/" is recorded again without a request.
  expect(links.some((line) => line.startsWith(`${site.url("/")} ${site.url("/p?xxx")}`) && line.endsWith(" 0 long"))).toBe(true);
  expect(asked.some((line) => line.startsWith("GET /p?"))).toBe(false);
}, 60_000);

test("a page bigger than what is kept unparsed streams into the parser, and is still reused when unchanged", async () => {
  let version = 1;
  // Over KEPT_BYTES (1 MiB) of text between its first and last link; no validators, so only its hash tells.
  const filler = `<p>${"words ".repeat(200_000)}</p>`;
  const big = await startLoopbackSite({
    "/": { body: `<a href="/big">${HOSTILE}</a>` },
    // Sent in pieces, so the reader sees chunks before and after the point where it stops keeping them.
    "/big": () => {
      const body = new TextEncoder().encode(`<a href="/first">first</a>${filler}<a href="/last-${version}">last</a>`);
      const stream = new ReadableStream({
        async pull(controller) {
          for (let at = 0; at < body.length; at += 65_536) {
            controller.enqueue(body.subarray(at, at + 65_536));
            await Bun.sleep(1);
          }
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/html" } });
    },
    "/first": { body: "ok", headers: { "content-type": "text/plain" } },
    "/last-1": { body: "ok", headers: { "content-type": "text/plain" } },
  });
  try {
    const domainId = await verifiedDomain(svc, big.url("/"));
    const linksOf = async (id: string) =>
      (await readAll(svc, `/crawls/${id}/links`)).map((link) => `${link.source_url} ${link.url} ${link.status_code} ${link.link_text}`).sort();
    const first = await crawl(domainId);
    const same = await crawl(domainId);
    expect(same).toMatchObject({ status: "completed", pages_crawled: 2, pages_reused: 2 });
    expect(await linksOf(same.id)).toEqual(await linksOf(first.id));
    version = 2;
    const changed = await crawl(domainId);
    expect(changed).toMatchObject({ status: "completed", pages_crawled: 2, pages_reused: 1 });
    expect(await linksOf(changed.id)).toContain(`${big.url("/big")} ${big.url("/last-2")} 404 last`);
    expect(await linksOf(changed.id)).toContain(`${big.url("/big")} ${big.url("/first")} 200 first`);
    // What the changed page was read as is kept for the crawl after: unchanged since, it is reused.
    const after = await crawl(domainId);
    expect(after).toMatchObject({ status: "completed", pages_crawled: 2, pages_reused: 2 });
    expect(await linksOf(after.id)).toEqual(await linksOf(changed.id));
  } finally {
    await big.stop();
  }
}, 60_000);

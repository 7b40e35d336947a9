import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { ipLiteral, type Resolve } from "../../src/net/resolve.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * The nightly audit of a site that went down must not be silent: in the service, a crawl whose start page
 * gives nothing to crawl ends `failed` with `failure: "start_page"` and an `error` naming the page and the
 * cause, and `crawl.failed` carries the same to a real receiver that verifies its signature. Names resolve
 * from a table (offline): a name it lacks is a DNS failure, one pointing at a private address is refused by
 * the SSRF guard before any connection.
 */

let svc: TestService;
let receiver: WebhookReceiver;
let down: LoopbackSite;
let gone: LoopbackSite;
let ok: LoopbackSite;
/** Where rebind.test points: loopback while its domain is added, a private address when it is crawled. */
let rebindTo = "127.0.0.1";

beforeAll(async () => {
  receiver = await startWebhookReceiver({ tls: false });
  down = await startLoopbackSite({ "/": { status: 503, body: "maintenance" } });
  gone = await startLoopbackSite({});
  await gone.stop(); // nothing listens on its port any more
  ok = await startLoopbackSite({ "/": { body: "<a href='/a'>A</a>" }, "/a": { body: "fine" } });
  svc = await startTestService(
    {
      crawler: { allow_private_networks: false, allowed_cidrs: ["127.0.0.0/8"] },
      webhooks: { allow_http: true, allow_private_targets: true },
    },
    { resolve: rebindingResolver(tableResolver({ localhost: "127.0.0.1" })) },
  );
  const res = await svc.call("POST", "/webhooks", { body: { url: receiver.ipUrl() } });
  expect(res.status).toBe(201);
  receiver.useSecret(res.json.data.secret);
});
afterAll(async () => {
  await svc?.stop();
  await Promise.all([receiver?.stop(), down?.stop(), ok?.stop()]);
});

function rebindingResolver(table: Resolve): Resolve {
  return async (hostname) => (hostname === "rebind.test" ? [ipLiteral(rebindTo)!] : table(hostname));
}

const envelope = (request: ReceivedRequest) => JSON.parse(request.rawBody.toString("utf8"));

async function crawlOf(rootUrl: string): Promise<{ id: string; detail: any }> {
  rebindTo = "127.0.0.1";
  const domainId = await verifiedDomain(svc, rootUrl);
  rebindTo = "10.20.30.40";
  const id = await startCrawl(svc, domainId, { scan_images: true });
  return { id, detail: await waitForCrawl(svc, id) };
}

/** The end events the receiver got for crawl `id`, once the crawl's end has been delivered. */
async function endEvents(id: string): Promise<any[]> {
  const ofCrawl = (requests: ReceivedRequest[]) => requests.map(envelope).filter((e) => e.data.crawl_id === id && e.event !== "crawl.started");
  await receiver.waitFor((requests) => ofCrawl(requests).length > 0, 10_000);
  await Bun.sleep(300); // a second end event, if one were (wrongly) sent, would have arrived
  expect(receiver.requests.every((r) => r.verified)).toBe(true);
  return ofCrawl(receiver.requests);
}

describe("a start page that gives nothing to crawl fails the crawl, and crawl.failed says why", () => {
  test.each([
    ["it answers 503", (): string => down.url("/"), /^the start page http:\/\/127\.0\.0\.1:\d+\/ answered HTTP 503$/],
    ["nothing listens", (): string => gone.url("/"), /^the start page http:\/\/127\.0\.0\.1:\d+\/ could not be fetched: .*refused/i],
    [
      "its name does not resolve",
      (): string => "http://no-such-host.test/",
      /^the start page http:\/\/no-such-host\.test\/ could not be fetched: .*(DNS|resolve)/i,
    ],
    [
      "its name now resolves to a private address, which the guard refuses",
      (): string => "http://rebind.test/",
      /^the start page http:\/\/rebind\.test\/ could not be fetched: .*10\.20\.30\.40/,
    ],
  ] as const)("%s", async (_name, rootUrl, error) => {
    const { id, detail } = await crawlOf(rootUrl());
    expect(detail).toMatchObject({ status: "failed", failure: "start_page", pages_crawled: 0, total_links: 0, warnings: [] });
    expect(detail.error).toMatch(error);

    const events = await endEvents(id);
    expect(events.map((e) => e.event)).toEqual(["crawl.failed"]);
    expect(events[0].data).toMatchObject({ crawl_id: id, error: detail.error, failure: "start_page" });

    // Listed as failed too, and no link is made up for it.
    const listed = await svc.call("GET", `/crawls?status=failed&domain_id=${detail.domain_id}`);
    expect(listed.json.data.map((c: any) => c.id)).toEqual([id]);
    expect(await readAll(svc, `/crawls/${id}/links`)).toEqual([]);
  });

  test("a site that answers is unaffected: completed, no failure, no warnings", async () => {
    const { id, detail } = await crawlOf(ok.url("/"));
    expect(detail).toMatchObject({ status: "completed", failure: null, error: null, warnings: [], pages_crawled: 2, total_links: 1 });
    const events = await endEvents(id);
    expect(events.map((e) => e.event)).toEqual(["crawl.completed"]);
    expect(events[0].data.warnings).toEqual([]);
  });
});

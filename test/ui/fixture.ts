import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A service with something on every dashboard page: a verified loopback site crawled once (with broken
 * links), and a webhook on a loopback receiver with the deliveries that crawl queued.
 */

export interface DashboardFixture {
  svc: TestService;
  site: LoopbackSite;
  receiver: LoopbackSite;
  domainId: string;
  crawlId: string;
  webhookId: string;
  stop(): Promise<void>;
}

const html = (body: string) => ({ body: `<!doctype html><title>t</title>${body}` });

export async function startDashboardFixture(): Promise<DashboardFixture> {
  const svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
  const receiver = await startLoopbackSite({ "/hook": { status: 204 } });
  const site = await startLoopbackSite({
    "/": html(`<a href="/a">A</a> <a href="/missing">Missing</a> <a href="/gone">Gone</a>`),
    "/a": html(`<a href="/">Home</a> <a href="/missing">Missing again</a>`),
    "/gone": { status: 410, body: "gone" },
  });
  const hook = await svc.call("POST", "/webhooks", { body: { url: receiver.url("/hook"), name: "receiver" } });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${hook.text}`);
  const domainId = await verifiedDomain(svc, site.url("/"));
  const crawlId = await startCrawl(svc, domainId);
  await waitForCrawl(svc, crawlId);
  return {
    svc,
    site,
    receiver,
    domainId,
    crawlId,
    webhookId: hook.json.data.id,
    stop: async () => {
      await svc.stop();
      await site.stop();
      await receiver.stop();
    },
  };
}

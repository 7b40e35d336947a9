import { afterAll, beforeAll } from "bun:test";
import { type LoopbackSite, startLoopbackSite } from "./loopback-site.ts";
import { startTestService, type TestService } from "./service.ts";

/** A test file's service and the loopback sites its tests start, all stopped after the file. */
export interface ServiceWithSites {
  /** Set before the file's first test. */
  svc: TestService;
  /** A loopback site serving `routes`, stopped with the service. */
  site(routes: Parameters<typeof startLoopbackSite>[0]): Promise<LoopbackSite>;
}

/** Registers the file's beforeAll and afterAll; call it at the top level of a test file. */
export function serviceWithSites(): ServiceWithSites {
  const sites: LoopbackSite[] = [];
  const fixture: ServiceWithSites = {
    svc: undefined as unknown as TestService,
    site: async (routes) => {
      const started = await startLoopbackSite(routes);
      sites.push(started);
      return started;
    },
  };
  beforeAll(async () => {
    fixture.svc = await startTestService();
  });
  afterAll(async () => {
    await fixture.svc?.stop();
    for (const site of sites) await site.stop();
  });
  return fixture;
}

/** An HTML page of `body`, as a loopback site's route answers it. */
export const html = (body: string): Response => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

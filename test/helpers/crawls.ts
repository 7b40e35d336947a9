import type { TestService } from "./service.ts";

/**
 * Driving crawls through the API in tests: start one, wait for it to end (bounded), and read every link back
 * page by page.
 */

/** Polls GET /crawls/{id} until the crawl is completed or failed; throws after `timeoutMs`. */
export async function waitForCrawl(svc: TestService, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await svc.call("GET", `/crawls/${id}`);
    if (res.status !== 200) throw new Error(`GET /crawls/${id}: ${res.status} ${res.text}`);
    if (res.json.data.status === "completed" || res.json.data.status === "failed") return res.json.data;
    await Bun.sleep(50);
  }
  throw new Error(`crawl ${id} did not end within ${timeoutMs} ms`);
}

/** Every item of a paginated crawl sub-resource (links or broken), in API order. */
export async function readAll(svc: TestService, path: string, limit = 100): Promise<any[]> {
  const items: any[] = [];
  // Bounded: stops at the first short page, and never reads more than 1,000 pages.
  for (let page = 1; page <= 1_000; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const res = await svc.call("GET", `${path}${separator}page=${page}&limit=${limit}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    items.push(...res.json.data);
    if (res.json.data.length < limit) return items;
  }
  throw new Error(`${path}: more than 1,000 pages`);
}

/** Registers a domain the operator vouches for and returns its id. */
export async function verifiedDomain(svc: TestService, rootUrl: string): Promise<string> {
  const url = new URL(rootUrl);
  const domain = await svc.runtime.domains.add({ name: url.host, root_url: rootUrl }, true);
  return domain.id;
}

/** Starts a crawl through the API and returns its id. */
export async function startCrawl(svc: TestService, domainId: string, options: Record<string, boolean> = {}): Promise<string> {
  const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId, options } });
  if (res.status !== 201) throw new Error(`POST /crawls: ${res.status} ${res.text}`);
  return res.json.data.id;
}

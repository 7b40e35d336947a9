/**
 * API latency while a crawl runs (`bench/crawl.ts --api-load`): starts a second crawl of the site on the
 * running service, waits until it holds >= 50,100 links (so page 500 of 100 exists; smaller sites use page 1),
 * then runs a load generator (bench/lib/load-generators.ts: wrk when installed, else autocannon) for `seconds`
 * with `connections` concurrent connections against each endpoint in turn, with the bench's bearer key:
 *   GET /v1/crawls/{running}/links?page=500&limit=100   deep page of the crawl that is running
 *   GET /v1/crawls/{report}/links?page=500&limit=100    deep page of the first run's ended crawl (the report a
 *   GET /v1/crawls/{report}/links?page=1&limit=100      user reads while the next audit runs)
 *   GET /v1/crawls/{running}/broken?limit=100, GET /v1/crawls/{report}/broken?limit=100 (in the mix too)
 *   GET /v1/crawls/{running}, GET /v1/crawls?limit=20, GET /v1/domains
 * Each endpoint first gets one request alone (its latency is reported as first_request_ms: a first deep page
 * finds its positions then), then the load. Reports req/s, p50, p99, non-2xx and errors per endpoint,
 * whether the crawl was still running before and after each one, and the target p99 < 20 ms.
 *
 * Before those, while the crawl surely runs, the mix (`mixSeconds`, 15 s; 0 skips it): `threads` (2) threads
 * and the same connections, every connection rotating over MIX_PATHS (a wrk Lua script written at run time;
 * autocannon's request sequence), the measure of the API under a crawl: the crawl list, the running
 * crawl's detail, /broken?limit=100 of both crawls, and 100-row link pages (the first and a deep one) of the
 * running crawl, whose answers change as it goes, and of the ended one. `endpoints: false` runs the mix alone.
 */
import type { CrawlFlags } from "../test/fixtures/site-model.ts";
import type { LoadGenerator, LoadResult } from "./lib/load-generators.ts";
import { api, KEY, type Service, startCrawl, waitForCrawl } from "./runs/service.ts";

export const P99_TARGET_MS = 20;
const LINKS_NEEDED = 50_100;

export interface EndpointLoad extends LoadResult {
  path: string;
  /** One request alone before the load (a first deep page finds its positions then): its latency. */
  first_request_ms: number;
  crawl_running_before: boolean;
  crawl_running_after: boolean;
  pages_before: number;
  pages_after: number;
  p99_ok: boolean;
}

/** The rotating mix: one load over several paths. */
export interface MixLoad extends LoadResult {
  threads: number;
  seconds: number;
  /** --api-mix-rate: the requests/s offered in all (req_per_s says what was reached); null: as many as answered. */
  offered_rate: number | null;
  /** The rotation, crawl ids as {running} and {report}. */
  paths: string[];
  crawl_running_before: boolean;
  crawl_running_after: boolean;
  pages_before: number;
  pages_after: number;
  p99_ok: boolean;
}

/** The mix's rotation for a running crawl and an ended one; `linksPage` is the deep link page. */
export function mixPaths(running: string, report: string, linksPage: number): string[] {
  return [
    "/v1/crawls?limit=20",
    `/v1/crawls/${running}`,
    `/v1/crawls/${running}/broken?limit=100`,
    `/v1/crawls/${running}/links?page=1&limit=100`,
    `/v1/crawls/${running}/links?page=${linksPage}&limit=100`,
    `/v1/crawls/${report}/broken?limit=100`,
    `/v1/crawls/${report}/links?page=1&limit=100`,
    `/v1/crawls/${report}/links?page=${linksPage}&limit=100`,
  ];
}

export interface ApiLoadResult {
  /** The load generator and its version, e.g. "wrk 4.1.0". */
  generator: string;
  connections: number;
  seconds: number;
  crawl_id: string;
  links_page: number;
  links_when_started: number;
  /** The rotating mix; null when skipped or when it failed. */
  mix: MixLoad | null;
  endpoints: EndpointLoad[];
  crawl_end: { status: string | null; wall_s: number; pages_crawled: number | null; total_links: number | null };
  all_p99_ok: boolean;
}

/** The crawl's state, or "unknown" when the service does not answer in time (it may be saturated). */
async function crawlState(service: Service, crawlId: string): Promise<{ status: string; pages: number; links: number }> {
  try {
    const res = await api(service.origin, "GET", `/crawls/${crawlId}`);
    const d = res.json?.data ?? {};
    return { status: d.status ?? "unknown", pages: d.pages_crawled ?? 0, links: d.total_links ?? 0 };
  } catch {
    return { status: "unknown", pages: -1, links: -1 };
  }
}

const running = (status: string) => status === "running" || status === "pending";

export async function runApiLoad(
  service: Service,
  o: {
    generator: LoadGenerator;
    flags: CrawlFlags;
    reportCrawlId: string;
    connections: number;
    seconds: number;
    /** The mix's duration (0: no mix) and threads. */
    mixSeconds: number;
    mixThreads: number;
    /** Accept-Encoding of every request of the mix and the endpoints (absent: none, as wrk sends). */
    acceptEncoding?: string;
    /** One request per mix path alone before the mix (a first deep page finds its positions then), as the endpoints get. */
    mixWarm?: boolean;
    /** The mix's offered requests/s in all (absent: as many as answered). */
    mixRate?: number;
    /** Whether each endpoint is then loaded alone. */
    endpoints: boolean;
    timeoutS: number;
    dir: string;
    log: (line: string) => void;
  },
): Promise<ApiLoadResult> {
  const t0 = performance.now();
  const crawlId = await startCrawl(service, o.flags);
  o.log(`api-load: crawl ${crawlId} started; waiting for ${LINKS_NEEDED} links`);
  // Bounded: at most 120 s, or until the crawl ends.
  let state = await crawlState(service, crawlId);
  while (running(state.status) && state.links < LINKS_NEEDED && performance.now() - t0 < 120_000) {
    await Bun.sleep(100);
    state = await crawlState(service, crawlId);
  }
  const linksPage = state.links >= LINKS_NEEDED ? 500 : 1;
  if (!running(state.status)) o.log(`api-load: the crawl ended (${state.status}) before the load began: a site this small cannot show latency under a crawl`);
  const report = o.reportCrawlId;
  const placeholders = (path: string) => path.replaceAll(crawlId, "{running}").replaceAll(report, "{report}");
  let mix: MixLoad | null = null;
  if (o.mixSeconds > 0) {
    const rotation = mixPaths(crawlId, report, linksPage);
    if (o.mixWarm === true) {
      const t = performance.now();
      for (const path of rotation) {
        await fetch(`${service.origin}${path}`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(120_000) }).then((res) =>
          res.arrayBuffer(),
        );
      }
      o.log(`api-load: the mix's ${rotation.length} paths once each, alone, in ${Math.round(performance.now() - t)} ms`);
    }
    const before = await crawlState(service, crawlId);
    try {
      const r = await o.generator.runMix(service.origin, rotation, {
        connections: o.connections,
        threads: o.mixThreads,
        seconds: o.mixSeconds,
        key: KEY,
        dir: o.dir,
        label: "mix",
        acceptEncoding: o.acceptEncoding,
        rate: o.mixRate,
      });
      const after = await crawlState(service, crawlId);
      mix = {
        ...r,
        // autocannon runs in one Node.js thread whatever is asked.
        threads: o.generator.name === "wrk" ? o.mixThreads : 1,
        seconds: o.mixSeconds,
        offered_rate: o.mixRate ?? null,
        paths: rotation.map(placeholders),
        crawl_running_before: running(before.status),
        crawl_running_after: running(after.status),
        pages_before: before.pages,
        pages_after: after.pages,
        p99_ok: r.p99_ms < P99_TARGET_MS && r.non_2xx === 0 && r.errors === 0,
      };
      o.log(
        `api-load: mix of ${rotation.length} paths, ${mix.threads} thread(s): ${r.req_per_s} req/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, max ${r.max_ms} ms, non-2xx ${r.non_2xx}, errors ${r.errors}; crawl ${before.pages}->${after.pages} pages${mix.crawl_running_after ? "" : " (ended)"}`,
      );
    } catch (error) {
      o.log(`api-load: ${o.generator.name} on the mix failed: ${(error as Error).message}`);
    }
  }
  const paths = !o.endpoints
    ? []
    : [
        `/v1/crawls/${crawlId}/links?page=${linksPage}&limit=100`,
        `/v1/crawls/${report}/links?page=${linksPage}&limit=100`,
        `/v1/crawls/${report}/links?page=1&limit=100`,
        `/v1/crawls/${crawlId}/broken?limit=100`,
        `/v1/crawls/${report}/broken?limit=100`,
        `/v1/crawls/${crawlId}`,
        "/v1/crawls?limit=20",
        "/v1/domains",
      ];
  const endpoints: EndpointLoad[] = [];
  for (const path of paths) {
    const before = await crawlState(service, crawlId);
    // Warm-up: the steady state is what the target is about; the first request's own cost is reported apart.
    const t0 = performance.now();
    await fetch(`${service.origin}${path}`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(30_000) }).then((res) =>
      res.arrayBuffer(),
    );
    const firstRequestMs = Math.round((performance.now() - t0) * 100) / 100;
    let r: LoadResult;
    try {
      r = await o.generator.run(`${service.origin}${path}`, {
        connections: o.connections,
        seconds: o.seconds,
        key: KEY,
        dir: o.dir,
        label: String(endpoints.length),
        acceptEncoding: o.acceptEncoding,
      });
    } catch (error) {
      o.log(`api-load: ${o.generator.name} on ${path} failed: ${(error as Error).message}`);
      continue;
    }
    const after = await crawlState(service, crawlId);
    const row: EndpointLoad = {
      path: placeholders(path),
      first_request_ms: firstRequestMs,
      ...r,
      crawl_running_before: running(before.status),
      crawl_running_after: running(after.status),
      pages_before: before.pages,
      pages_after: after.pages,
      p99_ok: r.p99_ms < P99_TARGET_MS && r.non_2xx === 0 && r.errors === 0,
    };
    endpoints.push(row);
    o.log(
      `api-load: ${row.path}: ${row.req_per_s} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms, non-2xx ${row.non_2xx}, errors ${row.errors}; crawl ${before.pages}->${after.pages} pages${row.crawl_running_after ? "" : " (ended)"}`,
    );
  }
  const end = await waitForCrawl(service, crawlId, t0 + o.timeoutS * 1000).catch((error: Error) => ({
    outcome: "unknown",
    detail: { status: `unknown (${error.message})` } as any,
  }));
  return {
    generator: `${o.generator.name} ${o.generator.version ?? ""}`.trim(),
    connections: o.connections,
    seconds: o.seconds,
    crawl_id: crawlId,
    links_page: linksPage,
    links_when_started: state.links,
    mix,
    endpoints,
    crawl_end: {
      status: end.detail?.status ?? null,
      wall_s: Math.round(performance.now() - t0) / 1000,
      pages_crawled: end.detail?.pages_crawled ?? null,
      total_links: end.detail?.total_links ?? null,
    },
    all_p99_ok:
      (o.mixSeconds === 0 || (mix?.p99_ok === true && mix.crawl_running_before && mix.crawl_running_after)) &&
      endpoints.length === paths.length &&
      endpoints.every((e) => e.p99_ok && e.crawl_running_before && e.crawl_running_after),
  };
}

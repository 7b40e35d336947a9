import type { Context } from "hono";
import { renderReport, reportSummary, type CheckReport, type ReportFormat } from "../../services/report/report.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import type { BrokenTargetFilter } from "../../services/crawl-results.ts";

/**
 * A crawl's report as a download, rendered by the same code as `linkpatrol check --format csv|json`, so the
 * file a user downloads reads exactly like the CLI's. Streamed from the store a batch at a time: a crawl with
 * 500k links is never held whole in memory. With filters, the report holds exactly the links the crawl page's
 * filters select (every page of them, in discovery order), with the crawl's summary and `reported_links` /
 * `reported_broken` counting those links; orphan pages are not part of a filtered view.
 */

/** The formats a report is downloaded in. */
export type DownloadFormat = Extract<ReportFormat, "csv" | "json" | "jsonl">;

const CONTENT_TYPES: Record<DownloadFormat, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
  jsonl: "application/jsonl; charset=utf-8",
};

/** Chunks of report text sent per pull of the response stream (a chunk is a batch of links, or a line of the head). */
const CHUNKS_PER_PULL = 4;

export async function crawlReport(crawls: CrawlsService, domains: DomainsService, id: string): Promise<CheckReport> {
  const detail = await crawls.get(id);
  return {
    url: (await domains.get(detail.domain_id)).root_url,
    options: detail.options,
    summary: reportSummary(detail, { links: detail.total_links, broken: detail.broken_links }),
    links: () => crawls.allLinks(detail.id),
    brokenLinks: () => crawls.allBrokenLinks(detail.id),
    ...(detail.options.use_sitemap && { orphans: () => crawls.allOrphans(detail.id) }),
  };
}

/** The report of the links `filter` selects in crawl `id`. */
export async function filteredCrawlReport(crawls: CrawlsService, domains: DomainsService, id: string, filter: BrokenTargetFilter): Promise<CheckReport> {
  const detail = await crawls.get(id);
  const counts = await crawls.results.linkCounts(detail.id, filter);
  const links = () => crawls.results.allLinks(detail.id, filter);
  return {
    url: (await domains.get(detail.domain_id)).root_url,
    options: detail.options,
    summary: reportSummary(detail, counts),
    links,
    brokenLinks: async function* () {
      for await (const batch of links()) yield batch.filter((link) => link.is_broken);
    },
  };
}

/** Answers with the report in `format` as an attachment named after the domain and the crawl. */
export function reportResponse(c: Context, report: CheckReport, format: DownloadFormat, crawlId: string): Response {
  const chunks = renderReport(report, format)[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = "";
      for (let i = 0; i < CHUNKS_PER_PULL; i++) {
        const next = await chunks.next();
        if (next.done) {
          if (text !== "") controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        text += next.value;
      }
      controller.enqueue(encoder.encode(text));
    },
  });
  c.header("Content-Type", CONTENT_TYPES[format]);
  c.header("Content-Disposition", `attachment; filename="linkpatrol-${crawlId}.${format}"`);
  return c.body(body);
}

import type { FrontierTarget } from "../../store/frontier.repo.ts";
import type { Finding } from "../classify.ts";
import { PageReading } from "../page-reading.ts";
import { BodyHash, type PageRecord } from "../page-reuse.ts";
import { DRAIN, isSitePage, isSuccess, pageCut, type Answer, type ContentReader, type OpenReader, type ReadContext } from "./content-reader.ts";
import { isHtmlContentType } from "../decode.ts";

/**
 * Site HTML pages read as they stream in. A soft-404 page keeps no links: they would resolve under a URL that
 * does not exist (a spider trap). An off-site 2xx page is read to its end to keep the connection.
 */
export const htmlPageReader: ContentReader = {
  reads: (answer, target) => target.asPage && isSuccess(answer.status) && isHtmlContentType(answer.headers["content-type"]),
  open(answer: Answer, target: FrontierTarget, context: ReadContext): OpenReader {
    if (!isSitePage(answer, context.site)) return DRAIN;
    const wantsLinks = context.wantsLinks?.(target) !== false;
    const notFound = context.softNotFound?.pageReader(target.url, answer.finalUrl) ?? null;
    if (!wantsLinks && context.collectIds !== true && notFound === null) return unreadPage(answer.finalUrl, context);
    const reading = new PageReading(
      answer.finalUrl,
      answer.headers["content-type"],
      { maxLinks: wantsLinks ? context.maxLinksPerPage : 0, collectIds: context.collectIds === true, scanCss: wantsLinks && context.readCss === true },
      notFound,
      context.pageBytesRead,
    );
    // Hashed as it streams for the next crawl's reuse (page-reuse.ts), never held.
    const hash = context.recordPages === true ? new BodyHash() : null;
    return {
      consumer:
        hash === null
          ? reading.consumer
          : (chunk) => {
              hash.update(chunk);
              reading.consumer(chunk);
            },
      async finish(response) {
        const { links, dropped, ids, notFound: pending } = reading.finish(response.truncated);
        // A promise only for a page read before the probe answered: bounded by the probe's own timeout.
        const soft404 = pending === true || (pending !== false && (await pending));
        const cut = pageCut(response.truncated, wantsLinks ? dropped : 0, context);
        const findings: Finding[] = [];
        if (cut !== null) findings.push({ kind: "cut", cut, what: "page" });
        if (soft404) findings.push({ kind: "soft_404", broken: context.softNotFound?.broken === true });
        const record: PageRecord | null =
          hash === null || response.truncated
            ? null
            : {
                etag: response.headers.etag ?? null,
                lastModified: response.headers["last-modified"] ?? null,
                bodyHash: hash.digest(),
                bodyBytes: hash.bytes,
                linksFound: links.length + dropped,
              };
        return { page: { url: response.finalUrl, links: soft404 ? [] : links, cut, ids, stylesheet: false, record }, findings };
      },
    };
  },
};

/** A page of the site whose body nothing is asked of: drained, and recorded as a page with no links. */
function unreadPage(finalUrl: string, context: ReadContext): OpenReader {
  return {
    consumer: DRAIN.consumer,
    async finish(response) {
      const cut = pageCut(response.truncated, 0, context);
      return { page: { url: finalUrl, links: [], cut, ids: null, stylesheet: false }, findings: cut === null ? [] : [{ kind: "cut", cut, what: "page" }] };
    },
  };
}

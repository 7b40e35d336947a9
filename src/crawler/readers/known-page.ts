import type { FrontierTarget } from "../../store/frontier.repo.ts";
import { BodyHash, type PageRecord, type ReusedLinks, type StoredPage } from "../page-reuse.ts";
import { htmlPageReader } from "./html-page.ts";
import type { Answer, ContentRead, OpenReader, ReadContext } from "./content-reader.ts";

/**
 * A page the previous crawl read (page-reuse.ts), asked with its validators and answered at its own URL. A 304
 * reuses the stored links at once. A 2xx HTML body is hashed as it streams and kept, up to max_body_bytes (the
 * cap safeFetch already enforces): when the hash is the stored one it is dropped unparsed and the stored links are
 * reused, otherwise the kept bytes are read as any page is (html-page.ts). What that costs in memory:
 * bench/README.md, "Incremental audits".
 */

/** What the previous crawl's copy of a page comes to for this answer: reused links and the record to keep. */
function reusedPage(answer: Answer, stored: StoredPage, links: ReusedLinks, record: Pick<PageRecord, "bodyHash" | "bodyBytes">): ContentRead {
  const kept: PageRecord = {
    ...stored.record,
    ...record,
    // A 304 may carry fresher validators; absent, the stored ones still name this body.
    etag: answer.headers.etag ?? stored.record.etag,
    lastModified: answer.headers["last-modified"] ?? stored.record.lastModified,
  };
  return { page: { url: answer.finalUrl, links: [], cut: null, ids: null, stylesheet: false, record: kept, reused: links }, findings: [] };
}

/**
 * The reader for `answer` to a conditional request for `stored`: a 304 with the stored links (null when they are
 * gone: the caller asks again without validators), or a 2xx site page hashed before it is parsed.
 */
export function openKnownPage(answer: Answer, target: FrontierTarget, context: ReadContext, stored: StoredPage): OpenReader | null {
  const reuse = context.reuse!;
  if (answer.status === 304) {
    const links = reuse.links(stored);
    if (links === null) return null;
    return { consumer: () => {}, finish: async () => reusedPage(answer, stored, links, stored.record) };
  }
  const hash = new BodyHash();
  const chunks: Uint8Array[] = [];
  return {
    consumer(chunk) {
      hash.update(chunk);
      chunks.push(chunk);
      context.pageBytesRead?.(chunk.length);
    },
    async finish(response) {
      const bodyHash = response.truncated ? null : hash.digest();
      if (bodyHash === stored.record.bodyHash) {
        const links = reuse.links(stored);
        if (links !== null) return reusedPage(answer, stored, links, { bodyHash, bodyBytes: hash.bytes });
      }
      // Changed: read the kept bytes as the page they are.
      // Its bytes were told to the GC rhythm as they came: not again.
      const reading = htmlPageReader.open(answer, target, { ...context, pageBytesRead: undefined });
      for (const chunk of chunks.splice(0)) reading.consumer?.(chunk);
      return reading.finish(response);
    },
  };
}

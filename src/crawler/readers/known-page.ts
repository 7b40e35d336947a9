import type { FrontierTarget } from "../../store/frontier.repo.ts";
import { BodyHash, type PageRecord, type ReusedLinks, type StoredPage } from "../page-reuse.ts";
import { htmlPageReader } from "./html-page.ts";
import type { Answer, ContentRead, OpenReader, ReadContext } from "./content-reader.ts";

/**
 * A page the previous crawl read (page-reuse.ts), asked with its validators and answered at its own URL. A 304
 * reuses the stored links at once. A 2xx HTML body is hashed as it streams and kept: when the hash is the stored
 * one it is dropped unparsed and the stored links are reused, otherwise the kept bytes are read as any page is
 * (html-page.ts). At most KEPT_BYTES are kept per page: a bigger page is handed to the page reader from there on
 * and parsed as it streams (its hash still decides whether the stored links stand), so reuse never holds more
 * than KEPT_BYTES per page in flight where streaming held a chunk (bench/README.md, "Incremental audits").
 */

/** Bytes of a page kept unparsed while its hash is not known yet. */
export const KEPT_BYTES = 1 << 20;

/** What the previous crawl's copy of a page comes to for this answer: reused links and the record to keep. */
function reusedPage(answer: Answer, stored: StoredPage, links: ReusedLinks, record: Pick<PageRecord, "bodyHash" | "bodyBytes">): ContentRead {
  const kept: PageRecord = {
    ...stored.record,
    ...record,
    // A 304 may carry fresher validators; absent, the stored ones still name this body.
    etag: answer.headers.etag ?? stored.record.etag,
    lastModified: answer.headers["last-modified"] ?? stored.record.lastModified,
  };
  return { page: { url: answer.finalUrl, links: [], cut: null, ids: stored.ids, stylesheet: false, record: kept, reused: links }, findings: [] };
}

/**
 * The reader for `answer` to a conditional request for `stored`: a 304 with the stored links (no page when they
 * are gone: the caller asks again without validators), or a 2xx site page hashed before it is parsed.
 */
export function openKnownPage(answer: Answer, target: FrontierTarget, context: ReadContext, stored: StoredPage): OpenReader | null {
  const reuse = context.reuse!;
  if (answer.status === 304) {
    // The stored links are read as the answer finishes; gone meanwhile, nothing is read, and the page is asked
    // again without validators (check-target.ts).
    return {
      consumer: () => {},
      finish: async () => {
        const links = await reuse.links(stored);
        return links === null ? { page: null, findings: [] } : reusedPage(answer, stored, links, stored.record);
      },
    };
  }
  const hash = new BodyHash();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  // Opened when the page is known to need parsing, or is too big to keep.
  let reading: OpenReader | null = null;
  const read = (): OpenReader => {
    // Hashed here, not again; its bytes are told to the GC rhythm by the reader that parses them: a body
    // dropped unparsed makes no garbage but its own buffers (bench/README.md, "Incremental audits").
    reading ??= htmlPageReader.open(answer, target, { ...context, recordPages: false });
    for (const chunk of chunks.splice(0)) reading.consumer?.(chunk);
    return reading;
  };
  return {
    consumer(chunk) {
      hash.update(chunk);
      if (reading !== null) return reading.consumer?.(chunk);
      chunks.push(chunk);
      kept += chunk.length;
      if (kept > KEPT_BYTES) read();
    },
    async finish(response) {
      const bodyHash = response.truncated ? null : hash.digest();
      if (bodyHash === stored.record.bodyHash) {
        const links = await reuse.links(stored);
        if (links !== null) return reusedPage(answer, stored, links, { bodyHash, bodyBytes: hash.bytes });
      }
      // Changed: read as the page it is, kept with this body's hash for the next crawl.
      const changed = await read().finish(response);
      if (changed.page !== null && bodyHash !== null) {
        const { headers } = response;
        changed.page.record = {
          etag: headers.etag ?? null,
          lastModified: headers["last-modified"] ?? null,
          bodyHash,
          bodyBytes: hash.bytes,
          linksFound: changed.page.links.length,
        };
      }
      return changed;
    },
  };
}

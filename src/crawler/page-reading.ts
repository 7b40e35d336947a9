import { collectEveryBytes, PAGE_BYTES_PER_COLLECTION } from "../core/gc-rhythm.ts";
import type { BodyConsumer } from "../net/body-sink.ts";
import { HtmlTextStream } from "./decode.ts";
import { createExtractor, type ExtractedLink, type Extractor, type ExtractorOptions } from "./extract.ts";
import type { PageIds } from "./page-ids.ts";
import { notFoundPageReader, type NotFoundComparison, type NotFoundPageReader } from "./soft-404.ts";

/** One per thread: every page this thread reads counts toward the next collection. */
const collectByBytes = collectEveryBytes(PAGE_BYTES_PER_COLLECTION);

/** How to read one page; plain data, so it can be handed to a parser thread (page-parser.ts). */
export interface PageReadRequest {
  /** The page's final URL: the base its hrefs resolve against. */
  finalUrl: string;
  contentType: string | undefined;
  options: ExtractorOptions;
  /** Set when the page is to be compared with the site's not-found page (soft-404.ts). */
  notFound: NotFoundComparison | null;
}

/** What reading a page found; plain data, like the request. */
export interface PageReadResult {
  links: ExtractedLink[];
  /** Links past the page's cap: counted, not kept. */
  dropped: number;
  ids: PageIds | null;
  notFound: boolean;
}

/** A page being read, in this thread or another: it takes the body's bytes, then says what was found. */
export interface PageReader {
  /** Takes the decoded body's bytes (safeFetch's `streamBody`); each chunk becomes the reader's. */
  readonly consumer: BodyConsumer;
  /** Once the body is complete or cut (`cut`). */
  finish(cut: boolean): Promise<PageReadResult>;
  /** Drops a page that will not be finished (its fetch failed or was asked again). */
  discard(): void;
}

/** Starts reading a page; the crawl is handed one of these (page-parser.ts decides which thread reads). */
export type ReadPage = (request: PageReadRequest) => PageReader;

/**
 * One HTML page read as its body arrives: bytes → text (decode.ts, the page's own encoding) → the link
 * extractor and, when the site has a soft-404 page, the reader comparing the page with it. Nothing holds the
 * page whole, so what a page costs is what the extractor keeps of it, not its size.
 */
export class PageReading {
  private readonly extractor: Extractor;
  private readonly text: HtmlTextStream;
  private readonly notFound: NotFoundPageReader | null;
  readonly consumer: BodyConsumer;

  constructor(request: PageReadRequest) {
    const extractor = createExtractor(request.finalUrl, request.options);
    const notFound = request.notFound === null ? null : notFoundPageReader(request.notFound);
    this.extractor = extractor;
    this.notFound = notFound;
    this.text = new HtmlTextStream(request.contentType, (html) => {
      extractor.write(html);
      notFound?.write(html);
    });
    this.consumer = (chunk) => {
      this.text.write(chunk);
      collectByBytes(chunk.length);
    };
  }

  /** The page's links and what else was read, once the body is complete or cut (`cut`). */
  finish(cut: boolean): PageReadResult {
    this.text.end();
    const links = this.extractor.end();
    return { links, dropped: this.extractor.dropped, ids: this.extractor.ids(cut), notFound: this.notFound?.isNotFound() === true };
  }
}

/** Reads a page in the calling thread. */
export const readPageHere: ReadPage = (request) => {
  const reading = new PageReading(request);
  return { consumer: reading.consumer, finish: async (cut) => reading.finish(cut), discard: () => {} };
};

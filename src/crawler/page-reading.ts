import type { BodyConsumer } from "../net/body-sink.ts";
import { HtmlTextStream } from "./decode.ts";
import { createExtractor, type ExtractedLink, type Extractor, type ExtractorOptions } from "./extract.ts";
import type { PageIds } from "./page-ids.ts";
import type { NotFoundPageReader } from "./soft-404.ts";

/**
 * One HTML page read as its body arrives; nothing holds the page whole, so it costs what the extractor keeps.
 * Each chunk is told to `bytesRead` for the job's GC rhythm.
 */
export class PageReading {
  private readonly extractor: Extractor;
  private readonly text: HtmlTextStream;
  /** Takes the decoded body's bytes (safeFetch's `streamBody`). */
  readonly consumer: BodyConsumer;

  constructor(
    finalUrl: string,
    contentType: string | undefined,
    options: ExtractorOptions,
    private readonly notFound: NotFoundPageReader | null,
    bytesRead?: (bytes: number) => void,
  ) {
    const extractor = createExtractor(finalUrl, options);
    this.extractor = extractor;
    // A UTF-8 page's bytes go to the extractor as they are (its Wasm reader reads bytes); its text is decoded
    // only for the soft-404 reader. A page in another encoding is decoded once, for both.
    const text = new HtmlTextStream(
      contentType,
      (html) => {
        if (!text.bytesGoRaw) extractor.write(html);
        notFound?.write(html);
      },
      (bytes) => extractor.writeUtf8(bytes),
      notFound !== null,
    );
    this.text = text;
    this.consumer = (chunk) => {
      this.text.write(chunk);
      bytesRead?.(chunk.length);
    };
  }

  /**
   * The page's links and what else was read, once the body is complete or cut (`cut`). `notFound` is a promise
   * only while the site's soft-404 probe has not answered (soft-404.ts).
   */
  finish(cut: boolean): { links: ExtractedLink[]; dropped: number; ids: PageIds | null; notFound: boolean | Promise<boolean> } {
    this.text.end();
    const links = this.extractor.end();
    return { links, dropped: this.extractor.dropped, ids: this.extractor.ids(cut), notFound: this.notFound?.isNotFound() ?? false };
  }
}

import type { FrontierTarget } from "../store/frontier.repo.ts";
import type { Answer, ContentReader, ReadContext } from "./readers/content-reader.ts";
import { htmlPageReader } from "./readers/html-page.ts";
import { stylesheetReader } from "./readers/stylesheet.ts";

/**
 * The content readers, by type: the first that reads an answer reads its body; an answer none of them reads
 * is judged on its status alone and its body is not fetched. A new kind of content is one file in readers/ and
 * one row here. Sitemaps are read in their own phase (sitemap-read.ts), not per target.
 */
const CONTENT_READERS: readonly ContentReader[] = [stylesheetReader, htmlPageReader];

/** The reader for `answer`, the final answer to `target`, or null when its body is not wanted. */
export function readerFor(answer: Answer, target: FrontierTarget, context: ReadContext): ContentReader | null {
  return CONTENT_READERS.find((reader) => reader.reads(answer, target, context)) ?? null;
}

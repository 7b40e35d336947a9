/** @jsxImportSource hono/jsx */
import type { CrawlFailure } from "../../core/crawl-life.ts";
import type { CrawlSummaryView } from "../../services/crawl-view.ts";
import { count } from "../format.ts";
import { Breakable } from "./crawled-url.tsx";
import { Ago, Time } from "./local-time.tsx";

/**
 * Why a crawl failed, in words, and the numbers of the domain's last completed crawl beside it: a failed crawl
 * found little or nothing, so its zeros must not read as "no broken links" (the overview, the domain page and
 * the crawl page all use these).
 */

/** A failure kind as a short phrase: "start page unreachable". */
export const FAILURE_WORDS: Record<CrawlFailure, string> = {
  start_page: "start page could not be crawled",
  max_duration: "stopped at the time limit",
  cancelled: "cancelled",
  internal: "stopped unexpectedly",
};

/** The crawl's own error as a sentence: first letter up, one full stop. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/\.$/, "");
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

/** "Failed: the start page could not be crawled. The start page http://… could not be fetched: connection refused." */
export function FailureReason(props: { failure: CrawlFailure | null; error: string | null }) {
  if (props.failure === "cancelled") return <>Cancelled by a user: what it had found when it was cancelled is kept, and final.</>;
  const kind = props.failure === null ? "failed" : `Failed: ${FAILURE_WORDS[props.failure]}`;
  return (
    <>
      <strong>{kind}.</strong> {props.error === null || props.error === "" ? "No reason was recorded." : <Breakable text={sentence(props.error)} />}
    </>
  );
}

/** The domain's last completed crawl in one line, with a link to it; says so when there is none. */
export function LastCompleted(props: { crawl: CrawlSummaryView | null; pages: number | null }) {
  const { crawl } = props;
  if (crawl === null) return <span class="last-completed">No crawl of this domain has completed yet.</span>;
  return (
    <span class="last-completed">
      Last completed crawl, <Ago iso={crawl.completed_at} /> (<Time iso={crawl.completed_at} />
      ): {props.pages === null ? "" : `${count(props.pages)} pages, `}
      {count(crawl.total_links)} links, {count(crawl.broken_links)} broken. <a href={`/ui/crawls/${crawl.id}`}>View that crawl</a>
    </span>
  );
}

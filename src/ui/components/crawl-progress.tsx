/** @jsxImportSource hono/jsx */
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import { count, seconds } from "../format.ts";

/** A running crawl's numbers: the JSON the script polls and the panel it updates (the same fields). */

/** True while the crawl may still change. */
export function isActive(crawl: CrawlDetailView): boolean {
  return crawl.status === "pending" || crawl.status === "running";
}

/** What a poll of a running crawl answers: its numbers, and why it waits when it does. */
export function progressOf(crawl: CrawlDetailView, queued: number) {
  const elapsed = seconds(crawl.started_at, crawl.completed_at);
  return {
    status: crawl.status,
    pages_crawled: crawl.pages_crawled,
    total_links: crawl.total_links,
    broken_links: crawl.broken_links,
    queued,
    pages_per_second: crawl.started_at === null ? 0 : Math.round((crawl.pages_crawled / elapsed) * 10) / 10,
    elapsed_seconds: crawl.started_at === null ? 0 : Math.round(elapsed),
    /** Why the crawl makes no progress right now (a full disk), or "" (the script writes it as text). */
    waiting_reason: crawl.waiting_reason ?? "",
  };
}

/** The live panel: the script finds it by `data-progress-url` and fills each `data-field`. */
export function Progress(props: { crawl: CrawlDetailView; queued: number }) {
  const p = progressOf(props.crawl, props.queued);
  const fields: [Exclude<keyof typeof p, "waiting_reason">, string][] = [
    ["status", "Status"],
    ["pages_crawled", "Pages"],
    ["total_links", "Links"],
    ["broken_links", "Broken"],
    ["queued", "Queued"],
    ["pages_per_second", "Pages/s"],
    ["elapsed_seconds", "Seconds"],
  ];
  return (
    <section class="panel" aria-labelledby="progress" data-progress-url={`/ui/crawls/${props.crawl.id}/progress.json`}>
      <h2 id="progress">Progress</h2>
      <dl class="stats" aria-live="polite">
        {fields.map(([name, label]) => (
          <div>
            <dt>{label}</dt>
            <dd data-field={name}>{typeof p[name] === "number" ? count(p[name] as number) : p[name]}</dd>
          </div>
        ))}
      </dl>
      <p class="muted" data-field="waiting_reason" aria-live="polite">
        {p.waiting_reason}
      </p>
      <p class="muted">This page updates by itself while the crawl runs.</p>
    </section>
  );
}

/** @jsxImportSource hono/jsx */
import type { CrawlBriefView, CrawlProgressView } from "../../services/crawl-view.ts";
import { count, duration, seconds } from "../format.ts";
import type { Rates } from "../recent-rates.ts";

/**
 * A running crawl's numbers, each with its text in `shown` so the panel reads the same without the script. The
 * estimate says "estimating…" until there is a rate, never a negative or endless time.
 */

/** True while the crawl may still change. */
export function isActive(crawl: Pick<CrawlBriefView, "status">): boolean {
  return crawl.status === "pending" || crawl.status === "running";
}

/** Beyond this an estimate means nothing: the frontier grows faster than it empties. */
const LONGEST_ESTIMATE_S = 7 * 86_400;

/** The rate in words: "3.2 pages/s · 10.5 URLs/s (last 30 s)". */
function rateText(rates: Rates | null): string {
  if (rates === null) return "measuring…";
  const one = (n: number) => (Math.round(n * 10) / 10).toLocaleString("en-US");
  return `${one(rates.pagesPerSecond)} pages/s · ${one(rates.targetsPerSecond)} URLs/s (last ${rates.overSeconds} s)`;
}

/** What a poll of a running crawl answers: its numbers, their texts, and why it waits when it does. */
export function progressOf(crawl: CrawlBriefView, frontier: CrawlProgressView | null, rates: Rates | null) {
  const found = frontier?.targets_found ?? 0;
  const checked = frontier?.targets_checked ?? 0;
  const queued = frontier?.targets_queued ?? 0;
  const running = crawl.status === "running";
  const percent = running && found > 0 ? Math.min(checked === found ? 100 : 99, Math.floor((checked * 100) / found)) : null;
  const estimate = running && rates !== null && rates.targetsPerSecond > 0 && queued > 0 ? queued / rates.targetsPerSecond : null;
  const secondsLeft = estimate !== null && estimate <= LONGEST_ESTIMATE_S ? Math.ceil(estimate) : null;
  const elapsed = crawl.started_at === null ? 0 : Math.round(seconds(crawl.started_at, crawl.completed_at));
  const left =
    crawl.status === "pending"
      ? "waiting to start"
      : !running
        ? "—"
        : queued === 0
          ? "finishing…"
          : secondsLeft !== null
            ? `about ${duration(secondsLeft)}`
            : estimate !== null
              ? "more than a week at this rate"
              : "estimating…";
  return {
    status: crawl.status,
    pages_crawled: crawl.pages_crawled,
    total_links: crawl.total_links,
    broken_links: crawl.broken_links,
    targets_found: found,
    targets_checked: checked,
    targets_queued: queued,
    percent_done: percent,
    pages_per_second: rates === null ? null : Math.round(rates.pagesPerSecond * 10) / 10,
    targets_per_second: rates === null ? null : Math.round(rates.targetsPerSecond * 10) / 10,
    seconds_left: secondsLeft,
    elapsed_seconds: elapsed,
    /** Why the crawl makes no progress right now (a full disk), or "" (the script writes it as text). */
    waiting_reason: crawl.waiting_reason ?? "",
    /** Each field of the panel as it reads. */
    shown: {
      status: crawl.status,
      pages_crawled: count(crawl.pages_crawled),
      total_links: count(crawl.total_links),
      broken_links: count(crawl.broken_links),
      targets_found: count(found),
      targets_checked: count(checked),
      targets_queued: count(queued),
      percent_done: percent === null ? "—" : `${percent} %`,
      rate: running ? rateText(rates) : "—",
      time_left: left,
      elapsed: duration(elapsed),
      waiting_reason: crawl.waiting_reason ?? "",
    },
  };
}

export type LiveProgress = ReturnType<typeof progressOf>;

const FIELDS: [keyof LiveProgress["shown"], string][] = [
  ["status", "Status"],
  ["pages_crawled", "Pages parsed"],
  ["total_links", "Links"],
  ["broken_links", "Broken links"],
  ["targets_found", "URLs found"],
  ["targets_checked", "URLs checked"],
  ["targets_queued", "URLs left"],
  ["percent_done", "Done (of URLs found so far)"],
  ["rate", "Rate now"],
  ["time_left", "Time left"],
  ["elapsed", "Running for"],
];

/** The live panel: the script finds it by `data-progress-url` and fills each `data-field` from `shown`. */
export function Progress(props: { crawl: CrawlBriefView; progress: LiveProgress }) {
  const p = props.progress;
  return (
    <section class="panel" aria-labelledby="progress" data-progress-url={`/ui/crawls/${props.crawl.id}/progress.json`}>
      <h2 id="progress">Progress</h2>
      <progress
        class="progress"
        max={100}
        value={p.percent_done ?? 0}
        data-field-value="percent_done"
        aria-label="Share of the URLs found so far that are checked"
      >
        {p.shown.percent_done}
      </progress>
      <dl class="stats" aria-live="polite">
        {FIELDS.map(([name, label]) => (
          <div>
            <dt>{label}</dt>
            <dd data-field={name}>{p.shown[name]}</dd>
          </div>
        ))}
      </dl>
      <p class="muted" data-field="waiting_reason" aria-live="polite">
        {p.shown.waiting_reason}
      </p>
      <p class="muted">
        This page updates by itself while the crawl runs. The rate is measured over the last half minute; the time left divides the URLs still queued by it, and
        grows when pages lead to new URLs.
      </p>
    </section>
  );
}

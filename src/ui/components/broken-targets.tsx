/** @jsxImportSource hono/jsx */
import { LINK_KINDS } from "../../core/link-kind.ts";
import type { BrokenTargetView, HostSummaryRecord, NumberedPage, TargetSort } from "../../services/crawl-results.ts";
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import { PAGE_SIZES, queryString, type Filters, type View } from "../crawl-filters.ts";
import { brokenFor, count, when } from "../format.ts";
import { CrawledUrl, outcome } from "./crawled-url.tsx";
import { HostSummary } from "./host-summary.tsx";
import { PageNumbers } from "./page-numbers.tsx";
import { SortHeader } from "./sort-header.tsx";

/** A crawl's broken links grouped by target, with the filters, sorting, pages and downloads of that selection. */

const CLASS_LABELS = { "4xx": "4xx client errors", "5xx": "5xx server errors", network: "network errors (no answer)", warning: "warnings" } as const;

interface BrokenTargetsProps {
  crawl: CrawlDetailView;
  filters: Filters;
  view: View<TargetSort>;
  page: NumberedPage<BrokenTargetView> & { links: number };
  hosts: { items: HostSummaryRecord[]; total: number };
}

function FilterForm(props: { crawl: CrawlDetailView; filters: Filters; view: View<TargetSort> }) {
  const { filters, view } = props;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a <search> element around the form is newer than the browsers an operator may use; the role says the same
    <form method="get" action={`/ui/crawls/${props.crawl.id}`} role="search">
      <div class="row">
        <div>
          <label for="f-q">URL contains</label>
          <input id="f-q" name="q" type="search" value={filters.q ?? ""} />
        </div>
        <div>
          <label for="f-host">Host</label>
          <input id="f-host" name="host" type="text" size={18} value={filters.host ?? ""} />
        </div>
        <div>
          <label for="f-class">Result</label>
          <select id="f-class" name="class">
            <option value="">any broken</option>
            {Object.entries(CLASS_LABELS).map(([value, label]) => (
              <option value={value} selected={filters.class === value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-status">Status code</label>
          <input id="f-status" name="status" type="text" inputmode="numeric" size={4} value={filters.status === undefined ? "" : String(filters.status)} />
        </div>
        <div>
          <label for="f-kind">Kind</label>
          <select id="f-kind" name="kind">
            <option value="">any</option>
            {LINK_KINDS.map((kind) => (
              <option value={kind} selected={filters.kind === kind}>
                {kind}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-scope">Where</label>
          <select id="f-scope" name="scope">
            <option value="">internal and external</option>
            <option value="internal" selected={filters.scope === "internal"}>
              internal
            </option>
            <option value="external" selected={filters.scope === "external"}>
              external
            </option>
          </select>
        </div>
        <div>
          <label for="f-size">Rows per page</label>
          <select id="f-size" name="size">
            {PAGE_SIZES.map((size) => (
              <option value={String(size)} selected={view.size === size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        {view.sort !== "found" && <input type="hidden" name="sort" value={view.sort} />}
        {view.dir !== "asc" && <input type="hidden" name="dir" value={view.dir} />}
        <button type="submit">Filter</button>
        <a class="button secondary" href={`/ui/crawls/${props.crawl.id}`}>
          Reset
        </a>
      </div>
    </form>
  );
}

export function BrokenTargets(props: BrokenTargetsProps) {
  const { crawl, filters, view, page } = props;
  const base = `/ui/crawls/${crawl.id}`;
  const filtered = Object.keys(filters).length > 0;
  const warnings = filters.class === "warning";
  const sortHref = (sort: TargetSort, dir: "asc" | "desc") => `${base}${queryString(filters, { ...view, sort, dir, page: 1 })}`;
  const pageHref = (n: number) => `${base}${queryString(filters, { ...view, page: n })}`;
  const noun = warnings ? "target" : "broken target";
  return (
    <section aria-labelledby="broken">
      <h2 id="broken">{warnings ? "Links with a warning, by target" : "Broken links by target"}</h2>
      <FilterForm crawl={crawl} filters={filters} view={view} />
      <HostSummary
        hosts={props.hosts}
        selected={filters.host}
        href={(host) => `${base}${queryString({ ...filters, host }, { ...view, page: 1 })}`}
        clear={`${base}${queryString({ ...filters, host: undefined }, { ...view, page: 1 })}`}
      />
      <p class="muted" id="broken-count">
        {count(page.total)} {noun}
        {page.total === 1 ? "" : "s"}
        {warnings ? " with a warning" : ""}
        {filtered ? " match the filters" : ""}.
        {view.sort !== "found" && (
          <>
            {" "}
            <a href={`${base}${queryString(filters, { ...view, sort: "found", dir: "asc", page: 1 })}`}>Back to discovery order</a>
          </>
        )}
      </p>
      {filtered && (
        <p id="filtered-downloads">
          Download these {count(page.links)} links (all pages):{" "}
          {(["csv", "json", "jsonl"] as const).map((format) => (
            <>
              <a class="button secondary" href={`${base}/report.${format}${queryString(filters)}`} download>
                {format.toUpperCase()}
              </a>{" "}
            </>
          ))}
        </p>
      )}
      {page.items.length > 0 && (
        <div class="table-wrap">
          <table id="targets">
            <thead>
              <tr>
                <SortHeader label="Target" column="url" view={view} href={sortHref} />
                <SortHeader label="Host" column="host" view={view} href={sortHref} />
                <SortHeader label="Result" column="status" view={view} href={sortHref} />
                <SortHeader label="Broken since" column="since" view={view} href={sortHref} />
                <SortHeader label="Links" column="links" view={view} href={sortHref} num />
                <th scope="col">Linked from</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((target) => (
                <tr class="broken-target" data-target-id={String(target.target_id)}>
                  <td>
                    <CrawledUrl url={target.url} />
                    <div class="muted">{target.internal ? "internal" : "external"}</div>
                  </td>
                  <td class="host">{target.host}</td>
                  <td>
                    <span class={target.target_broken ? "badge bad" : "badge"} data-status={String(target.status_code)}>
                      {target.target_broken || warnings ? outcome(target) : `${outcome(target)} · fragment not found`}
                    </span>
                    {target.warning !== null && <div class="muted">{target.warning}</div>}
                  </td>
                  <td>
                    {target.broken_since !== null && (
                      <span title={`first found broken by the crawl started ${when(target.broken_since)}`} data-since={target.broken_since}>
                        {brokenFor(target.broken_since, crawl.started_at)}
                      </span>
                    )}
                  </td>
                  <td class="num">{count(target.links)}</td>
                  <td>
                    <details>
                      <summary>
                        {count(target.links)} page{target.links === 1 ? "" : "s"}
                      </summary>
                      <ul>
                        {target.sources.map((source) => (
                          <li>
                            <CrawledUrl url={source.source_url} /> <span class="muted">({source.kind})</span>
                            {source.link_text !== "" && <div>“{source.link_text}”</div>}
                            {source.fragment_error !== null && <div class="muted">{source.fragment_error}</div>}
                            {source.fragment_warning !== null && <div class="muted">{source.fragment_warning}</div>}
                            {source.broken_since !== target.broken_since && <div class="muted">{brokenFor(source.broken_since, crawl.started_at)}</div>}
                          </li>
                        ))}
                      </ul>
                    </details>
                    <a class="all-sources" href={`${base}/targets/${target.target_id}${queryString(filters)}`}>
                      {target.links > target.sources.length ? `All ${count(target.links)} linking pages` : "Linking pages"}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PageNumbers label="Broken link pages" page={page.page} pages={page.pages} href={pageHref} />
    </section>
  );
}

/** @jsxImportSource hono/jsx */
import type { BrokenSourceRecord, BrokenTargetRecord, NumberedPage, SourceSort } from "../../services/crawl-results.ts";
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import { PAGE_SIZES, queryString, type Filters, type View } from "../crawl-filters.ts";
import { brokenFor, count } from "../format.ts";
import { CrawledUrl, outcome } from "./crawled-url.tsx";
import { PageNumbers } from "./page-numbers.tsx";
import { SortHeader } from "./sort-header.tsx";

/**
 * Every page linking to one target, under the crawl page's filters: a sortable table in numbered pages of a
 * chosen size, so a target linked from thousands of pages is read through here rather than only in a download.
 */
export function TargetSources(props: {
  crawl: CrawlDetailView;
  target: Omit<BrokenTargetRecord, "links" | "broken_since">;
  filters: Filters;
  view: View<SourceSort>;
  page: NumberedPage<BrokenSourceRecord>;
}) {
  const { crawl, target, filters, view, page } = props;
  const base = `/ui/crawls/${crawl.id}/targets/${target.target_id}`;
  const sortHref = (sort: SourceSort, dir: "asc" | "desc") => `${base}${queryString(filters, { ...view, sort, dir, page: 1 })}`;
  return (
    <section aria-labelledby="sources">
      <p>
        <a href={`/ui/crawls/${crawl.id}${queryString(filters)}`}>← all targets</a>
      </p>
      <h2 id="sources">
        Pages linking to <CrawledUrl url={target.url} />
      </h2>
      <p>
        <span class={target.target_broken ? "badge bad" : "badge"}>{outcome(target)}</span> {target.internal ? "internal" : "external"} · host{" "}
        <code>{target.host}</code>
        {target.warning !== null && <span class="muted"> · {target.warning}</span>}
      </p>
      <form method="get" action={base} class="row">
        {Object.entries(filters).map(([name, value]) => (
          <input type="hidden" name={name} value={String(value)} />
        ))}
        {view.sort !== "found" && <input type="hidden" name="sort" value={view.sort} />}
        {view.dir !== "asc" && <input type="hidden" name="dir" value={view.dir} />}
        <label for="s-size">Rows per page</label>
        <select id="s-size" name="size">
          {PAGE_SIZES.map((size) => (
            <option value={String(size)} selected={view.size === size}>
              {size}
            </option>
          ))}
        </select>
        <button type="submit">Show</button>
      </form>
      <p class="muted" id="sources-count">
        {count(page.total)} linking page{page.total === 1 ? "" : "s"}
        {Object.keys(filters).length > 0 ? " match the filters" : ""}.
      </p>
      {page.items.length > 0 && (
        <div class="table-wrap">
          <table id="source-table">
            <thead>
              <tr>
                <SortHeader label="Linking page" column="source" view={view} href={sortHref} />
                <SortHeader label="Link text" column="text" view={view} href={sortHref} />
                <SortHeader label="Kind" column="kind" view={view} href={sortHref} />
                <SortHeader label="Broken since" column="since" view={view} href={sortHref} />
              </tr>
            </thead>
            <tbody>
              {page.items.map((source) => (
                <tr class="source-row">
                  <td>
                    <CrawledUrl url={source.source_url} />
                    {source.fragment_error !== null && <div class="muted">{source.fragment_error}</div>}
                    {source.fragment_warning !== null && <div class="muted">{source.fragment_warning}</div>}
                  </td>
                  <td class="link-text">{source.link_text}</td>
                  <td>{source.kind}</td>
                  <td data-since={source.broken_since ?? ""}>{brokenFor(source.broken_since, crawl.started_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PageNumbers label="Linking page pages" page={page.page} pages={page.pages} href={(n) => `${base}${queryString(filters, { ...view, page: n })}`} />
    </section>
  );
}

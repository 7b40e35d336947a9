/** @jsxImportSource hono/jsx */
import { LINK_KINDS } from "../../core/link-kind.ts";
import type { BrokenTargetView } from "../../services/crawls.service.ts";
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import { queryString, type Filters } from "../crawl-filters.ts";
import { brokenFor, count, when } from "../format.ts";
import { CrawledUrl, outcome } from "./crawled-url.tsx";

/**
 * A crawl's broken links grouped by target: the filter form, one row per target with its result, how long it
 * has been broken (its earliest link's broken_since, as of this crawl's start) and link count, the pages linking
 * to it folded in a <details> (no script needed), and keyset paging links.
 */
export function BrokenTargets(props: { crawl: CrawlDetailView; filters: Filters; page: { items: BrokenTargetView[]; total: number; next: number | null }; after: number }) {
  const { crawl, filters, page } = props;
  return (
    <section aria-labelledby="broken">
      <h2 id="broken">Broken links by target</h2>
      <form method="get" action={`/ui/crawls/${crawl.id}`} role="search">
        <div class="row">
          <div>
            <label for="f-q">URL contains</label>
            <input id="f-q" name="q" type="search" value={filters.q ?? ""} />
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
          <button type="submit">Filter</button>
          <a class="button secondary" href={`/ui/crawls/${crawl.id}`}>
            Reset
          </a>
        </div>
      </form>
      <p class="muted" id="broken-count">
        {count(page.total)} broken target{page.total === 1 ? "" : "s"}
        {Object.keys(filters).length > 0 ? " match the filters" : ""}.
      </p>
      {page.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Result</th>
                <th scope="col" class="num">Links</th>
                <th scope="col">Linked from</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((target) => (
                <tr class="broken-target">
                  <td>
                    <CrawledUrl url={target.url} />
                    <div class="muted">{target.internal ? "internal" : "external"}</div>
                  </td>
                  <td>
                    <span class="badge bad">{target.target_broken ? outcome(target) : `${outcome(target)} · fragment not found`}</span>
                    {target.broken_since !== null && (
                      <div class="muted" title={`first found broken by the crawl started ${when(target.broken_since)}`}>
                        {brokenFor(target.broken_since, crawl.started_at)}
                      </div>
                    )}
                    {target.warning !== null && <div class="muted">{target.warning}</div>}
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
                            {source.broken_since !== target.broken_since && <div class="muted">{brokenFor(source.broken_since, crawl.started_at)}</div>}
                          </li>
                        ))}
                        {target.links > target.sources.length && <li class="muted">and {count(target.links - target.sources.length)} more (in the report download)</li>}
                      </ul>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Broken link pages">
        {props.after > 0 && <a href={`/ui/crawls/${crawl.id}${queryString(filters)}`}>First page</a>}
        {page.next !== null && <a href={`/ui/crawls/${crawl.id}${queryString(filters, { after: page.next })}`}>Next page</a>}
      </nav>
    </section>
  );
}

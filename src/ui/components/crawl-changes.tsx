/** @jsxImportSource hono/jsx */
import type { ChangesPage } from "../../services/crawls.service.ts";
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import { count } from "../format.ts";
import { CrawledUrl, outcome } from "./crawled-url.tsx";
import { PageLinks } from "./page-links.tsx";

/** Rows of changes shown per page. */
export const CHANGES_PER_PAGE = 100;

/** Links newly broken and fixed since the previous completed crawl, with what they were compared against. */
export function Changes(props: { crawl: CrawlDetailView; changes: ChangesPage; page: number }) {
  const { changes, crawl } = props;
  const pages = Math.max(1, Math.ceil(changes.total / CHANGES_PER_PAGE));
  return (
    <section aria-labelledby="changes">
      <h2 id="changes">What changed since the previous crawl</h2>
      <p>
        {changes.againstCrawlId === null ? (
          "No previous completed crawl: every broken link is new."
        ) : (
          <>
            Compared with <a href={`/ui/crawls/${changes.againstCrawlId}`}>the previous completed crawl</a>:
          </>
        )}{" "}
        <strong>{count(changes.newBroken)}</strong> newly broken, <strong>{count(changes.fixed)}</strong> fixed.
      </p>
      {changes.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Link</th>
                <th scope="col">On page</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {changes.items.map((item) => (
                <tr>
                  <td>
                    <span class={`badge ${item.change === "fixed" ? "ok" : "bad"}`}>{item.change === "fixed" ? "fixed" : "newly broken"}</span>
                  </td>
                  <td>
                    <CrawledUrl url={item.url} />
                  </td>
                  <td>
                    <CrawledUrl url={item.source_url} />
                  </td>
                  <td>{outcome(item)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PageLinks label="Change pages" page={props.page} pages={pages} href={(page) => `/ui/crawls/${crawl.id}/changes?page=${page}`} />
    </section>
  );
}

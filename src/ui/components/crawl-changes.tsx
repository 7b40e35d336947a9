/** @jsxImportSource hono/jsx */
import type { ChangesPage } from "../../services/crawls.service.ts";
import type { ChangeKind, CrawlDetailView } from "../../services/crawl-view.ts";
import { brokenFor, count } from "../format.ts";
import { Columns } from "./layout.tsx";
import { CrawledUrl, outcome } from "./crawled-url.tsx";
import { PageLinks } from "./page-links.tsx";

/** Rows of changes shown per page. */
export const CHANGES_PER_PAGE = 100;

const BADGE: Record<ChangeKind, { label: string; tone: string }> = {
  new_broken: { label: "newly broken", tone: "bad" },
  fixed: { label: "fixed", tone: "ok" },
  not_checked: { label: "not checked this time", tone: "warn" },
};

/**
 * Links newly broken, fixed, and not checked this time, against the previous ended crawl, with what they were
 * compared against. A link this crawl did not check (other options, a page it did not reach, a crawl cut short)
 * is never shown as fixed.
 */
export function Changes(props: { crawl: CrawlDetailView; changes: ChangesPage; page: number }) {
  const { changes, crawl } = props;
  const pages = Math.max(1, Math.ceil(changes.total / CHANGES_PER_PAGE));
  return (
    <section aria-labelledby="changes">
      <h2 id="changes">What changed since the previous crawl</h2>
      <p>
        {changes.againstCrawlId === null ? (
          "No previous crawl: every broken link is new."
        ) : (
          <>
            Compared with <a href={`/ui/crawls/${changes.againstCrawlId}`}>the previous crawl</a>:
          </>
        )}{" "}
        <strong>{count(changes.newBroken)}</strong> newly broken, <strong>{count(changes.fixed)}</strong> fixed, <strong>{count(changes.notChecked)}</strong>{" "}
        not checked {changes.final ? "this time" : "yet"}.
      </p>
      {changes.notChecked > 0 && (
        <p class="muted">
          {changes.final
            ? "Not checked this time: links found broken before that this crawl did not check (it ran with other options, did not reach their page, or was cut short). They are not in this crawl's broken count (the crawl's page shows them beside it), and none is fixed: each stays open, with the date it was first found broken, until a crawl checks it."
            : "Until the crawl ends, links found broken before that it has not found broken again are not checked yet; none counts as fixed before then."}
        </p>
      )}
      {changes.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <Columns names={["Change", "Link", "On page", "Result"]} />
            <tbody>
              {changes.items.map((item) => (
                <tr>
                  <td>
                    <span class={`badge ${BADGE[item.change].tone}`}>{BADGE[item.change].label}</span>
                  </td>
                  <td>
                    <CrawledUrl url={item.url} />
                    <div class="muted">{item.kind}</div>
                  </td>
                  <td>
                    <CrawledUrl url={item.source_url} />
                  </td>
                  <td>
                    {outcome(item)}
                    {item.change !== "fixed" && item.broken_since !== null && <div class="muted">{brokenFor(item.broken_since, crawl.started_at)}</div>}
                  </td>
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

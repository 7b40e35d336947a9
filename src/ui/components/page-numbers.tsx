/** @jsxImportSource hono/jsx */

/** Page numbers shown on each side of the current one. */
const AROUND = 2;

/**
 * Numbered pages of a table: where it is ("Page N of M"), First/Previous/Next/Last and the page numbers near the
 * current one. Links appear only where they lead somewhere else; the current page is marked, not linked.
 */
export function PageNumbers(props: { label: string; page: number; pages: number; href: (page: number) => string }) {
  const { page, pages, href } = props;
  const near: number[] = [];
  for (let n = Math.max(1, page - AROUND); n <= Math.min(pages, page + AROUND); n++) near.push(n);
  return (
    <nav class="pager page-numbers" aria-label={props.label}>
      <span class="page-position">
        Page {page} of {pages}
      </span>
      {page > 1 && (
        <>
          <a href={href(1)} rel="first">
            First
          </a>
          <a href={href(page - 1)} rel="prev">
            Previous
          </a>
        </>
      )}
      {pages > 1 &&
        near.map((n) =>
          n === page ? (
            <strong aria-current="page">{n}</strong>
          ) : (
            <a href={href(n)} aria-label={`Page ${n}`}>
              {n}
            </a>
          ),
        )}
      {page < pages && (
        <>
          <a href={href(page + 1)} rel="next">
            Next
          </a>
          <a href={href(pages)} rel="last">
            Last
          </a>
        </>
      )}
    </nav>
  );
}

/** @jsxImportSource hono/jsx */

/** Links to the pages before and after `page` of `pages`, with where it is; nothing when there is one page. */
export function PageLinks(props: { label: string; page: number; pages: number; href: (page: number) => string; before?: string; after?: string }) {
  const { page, pages } = props;
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      {page > 1 && <a href={props.href(page - 1)}>{props.before ?? "Previous"}</a>}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages && <a href={props.href(page + 1)}>{props.after ?? "Next"}</a>}
    </nav>
  );
}

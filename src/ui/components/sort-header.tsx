/** @jsxImportSource hono/jsx */
import type { View } from "../crawl-filters.ts";

/**
 * A column header that sorts the table by its column: a link to the first page sorted by it, ascending, or the
 * other way when it is already the sort; `aria-sort` says which column sorts and how.
 */
export function SortHeader<Column extends string>(props: {
  label: string;
  column: Column;
  view: View<Column>;
  href: (sort: Column, dir: "asc" | "desc") => string;
  num?: boolean;
}) {
  const { column, view } = props;
  const current = view.sort === column;
  const next = current && view.dir === "asc" ? "desc" : "asc";
  return (
    <th scope="col" class={props.num ? "num" : undefined} aria-sort={current ? (view.dir === "asc" ? "ascending" : "descending") : undefined}>
      <a href={props.href(column, next)} data-sort={column}>
        {props.label}
        {current ? (view.dir === "asc" ? " ▲" : " ▼") : ""}
      </a>
    </th>
  );
}

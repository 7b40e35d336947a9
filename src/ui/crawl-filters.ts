import { LINK_KINDS, type StoredLinkKind } from "../core/link-kind.ts";
import { STATUS_CLASSES, type BrokenTargetFilter, type Sorting, type StatusClass } from "../services/crawl-results.ts";

/**
 * The crawl page's filters and view (sort column and direction, page, page size) as they travel in its query
 * string, read defensively: a value that is not one of the known ones is dropped, never an error.
 */

export interface Filters {
  status?: number;
  class?: StatusClass;
  kind?: StoredLinkKind;
  scope?: "internal" | "external";
  host?: string;
  q?: string;
}

/** How a table is shown: sorted by `sort` (`dir`), page `page` of `size` rows. */
export interface View<Column extends string> {
  sort: Column;
  dir: "asc" | "desc";
  page: number;
  size: number;
}

/** The page sizes offered; anything else falls back to the default. */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
const DEFAULT_PAGE_SIZE = 50;
/** A page number beyond this is read as this (the listing then shows its last page). */
const MAX_PAGE = 1_000_000;

function oneOf<T extends string>(values: readonly T[], value: string | undefined): T | undefined {
  return (values as readonly string[]).includes(value ?? "") ? (value as T) : undefined;
}

export function filtersFrom(query: Record<string, string>): Filters {
  const status = /^\d{1,3}$/.test(query.status ?? "") ? Number(query.status) : undefined;
  const kind = oneOf(LINK_KINDS, query.kind);
  const statusClass = oneOf(STATUS_CLASSES, query.class);
  const scope = oneOf(["internal", "external"] as const, query.scope);
  const host = query.host?.trim().toLowerCase().slice(0, 300);
  const q = query.q?.trim().slice(0, 200);
  return {
    ...(status !== undefined ? { status } : {}),
    ...(statusClass !== undefined ? { class: statusClass } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(host ? { host } : {}),
    ...(q ? { q } : {}),
  };
}

/** Every table's default order: discovery order (first found, first listed). */
const DEFAULT_SORT = "found";

/** The view in `query`; discovery order ascending unless it names one of `columns`. */
export function viewFrom<Column extends string>(query: Record<string, string>, columns: readonly Column[]): View<Column> {
  const size = Number(query.size);
  const page = /^\d{1,7}$/.test(query.page ?? "") ? Number(query.page) : 1;
  return {
    sort: oneOf(columns, query.sort) ?? (DEFAULT_SORT as Column),
    dir: query.dir === "desc" ? "desc" : "asc",
    page: Math.min(Math.max(1, page), MAX_PAGE),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
}

export function sortingOf<Column extends string>(view: View<Column>): Sorting<Column> {
  return { by: view.sort, descending: view.dir === "desc" };
}

export function repoFilter(filters: Filters): BrokenTargetFilter {
  return {
    statusCode: filters.status,
    statusClass: filters.class,
    kind: filters.kind,
    internal: filters.scope === undefined ? undefined : filters.scope === "internal",
    search: filters.q,
    host: filters.host,
  };
}

/** The query string of `filters` and the parts of `view` that differ from the defaults, with `extra` on top. */
export function queryString(filters: Filters, view?: View<string>, extra: Record<string, string | number | undefined> = {}): string {
  const shown: Record<string, string | number | undefined> = { ...filters };
  if (view !== undefined) {
    if (view.sort !== DEFAULT_SORT) shown.sort = view.sort;
    if (view.dir !== "asc") shown.dir = view.dir;
    if (view.size !== DEFAULT_PAGE_SIZE) shown.size = view.size;
    if (view.page !== 1) shown.page = view.page;
  }
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...shown, ...extra })) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

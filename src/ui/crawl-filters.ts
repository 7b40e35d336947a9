import { LINK_KINDS, type StoredLinkKind } from "../core/link-kind.ts";
import type { BrokenTargetFilter } from "../store/links.repo.ts";

/** The crawl page's filters as they travel in its query string, read defensively (anything odd is dropped). */

export interface Filters {
  status?: number;
  kind?: StoredLinkKind;
  scope?: "internal" | "external";
  q?: string;
}

export function filtersFrom(query: Record<string, string>): Filters {
  const status = Number.parseInt(query.status ?? "", 10);
  const kind = (LINK_KINDS as readonly string[]).includes(query.kind ?? "") ? (query.kind as StoredLinkKind) : undefined;
  const scope = query.scope === "internal" || query.scope === "external" ? query.scope : undefined;
  const q = query.q?.trim().slice(0, 200);
  return {
    ...(Number.isInteger(status) && status >= 0 && status <= 999 ? { status } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(q ? { q } : {}),
  };
}

export function repoFilter(filters: Filters): BrokenTargetFilter {
  return {
    statusCode: filters.status,
    kind: filters.kind,
    internal: filters.scope === undefined ? undefined : filters.scope === "internal",
    search: filters.q,
  };
}

export function queryString(filters: Filters, extra: Record<string, string | number> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, ...extra })) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

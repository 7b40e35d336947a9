import type { Digest } from "./digest.ts";

/**
 * What a channel's "Send test" sends: a digest shaped like a real one (one new broken link, one still broken,
 * one fixed), marked as a test in its title, so the operator sees how a real message will look.
 */
export function sampleDigest(now = new Date()): Digest {
  const at = now.toISOString();
  const weekAgo = new Date(now.getTime() - 7 * 86_400_000).toISOString();
  const target = (path: string, status: number, text: string) => ({
    url: `https://www.example.com${path}`,
    status_code: status,
    error: null,
    links: 1,
    sources: [{ url: "https://www.example.com/", text }],
  });
  return {
    crawl_id: "00000000-0000-7000-8000-000000000000",
    domain_name: "www.example.com",
    status: "completed",
    failure: null,
    error: null,
    warnings: [],
    truncated: false,
    pages_crawled: 12,
    total_links: 345,
    broken_links: 2,
    started_at: at,
    completed_at: at,
    compared_with: "00000000-0000-7000-8000-000000000001",
    previous_failed: false,
    new_broken: { links: 1, targets: 1, items: [{ ...target("/missing-page", 404, "a link that broke"), broken_since: at }] },
    still_broken: { links: 1, targets: 1, items: [{ ...target("/old-page", 410, "a link still broken"), broken_since: weekAgo }] },
    fixed: { links: 1, targets: 1, items: [target("/fixed-page", 404, "a link fixed since")] },
    not_checked: 0,
    test: true,
  };
}

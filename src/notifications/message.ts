import type { Digest, DigestSection, DigestTarget } from "./digest.ts";
import { oneLine } from "./plain-text.ts";

/**
 * A digest in words, before any format: every destination renders this same model (so email and chat say the
 * same thing) and adds only its syntax, escaping and size bound. Nothing is escaped yet.
 */

/** How a message should look at a glance: colours and emoji per destination key off this. */
export type Tone = "failed" | "broken" | "fixed" | "clean";

/** One listed target, in words. */
export interface MessageItem {
  /** The target URL (from the crawled site: hostile). */
  url: string;
  /** "404", "no answer: connection refused", "was 404" for a fixed one. */
  status: string;
  /** "broken since 2026-11-20 03:00 UTC (8 days)" for a broken link, else null. */
  since: string | null;
  /** Pages linking to it (URLs and link texts from the crawled site: hostile). */
  sources: { url: string; text: string }[];
  /** Further linking pages not listed. */
  moreSources: number;
}

export interface MessageSection {
  key: "new_broken" | "still_broken" | "fixed";
  /** "New broken links (3)". */
  heading: string;
  items: MessageItem[];
  /** Targets of this list not in `items` (the digest's bound); formats that show fewer add theirs. */
  moreTargets: number;
}

export interface Message {
  tone: Tone;
  /** "example.com: 3 new broken links" — also the email subject and push title. */
  title: string;
  /** "Crawl completed 2026-11-28 03:00 UTC: 1,234 links on 56 pages, 7 broken." */
  summary: string;
  /** Why the crawl failed, or null. */
  failure: string | null;
  warnings: string[];
  sections: MessageSection[];
  /** The crawl's page on the dashboard, or null without server.public_url. */
  link: string | null;
  /** "linkpatrol · crawl <id>" */
  footer: string;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** "2026-11-28 03:00 UTC". */
function when(iso: string | null): string {
  if (iso === null) return "at an unknown time";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function statusWords(target: DigestTarget, fixed: boolean): string {
  const status = target.status_code === 0 ? `no answer${target.error === null ? "" : `: ${target.error}`}` : `HTTP ${target.status_code}`;
  const detail = target.status_code !== 0 && target.error !== null ? ` (${target.error})` : "";
  return fixed ? `was ${status}${detail}` : `${status}${detail}`;
}

function sinceWords(since: string | undefined, now: number): string | null {
  if (since === undefined) return null;
  const days = Math.floor((now - Date.parse(since)) / 86_400_000);
  const age = days < 1 ? "less than a day" : plural(days, "day");
  return `broken since ${when(since)} (${age})`;
}

function sectionOf(key: MessageSection["key"], section: DigestSection, title: string, now: number): MessageSection | null {
  if (section.links === 0) return null;
  const items = section.items.map((target) => ({
    url: target.url,
    status: statusWords(target, key === "fixed"),
    since: sinceWords(target.broken_since, now),
    sources: target.sources,
    moreSources: Math.max(0, target.links - target.sources.length),
  }));
  const count = section.targets === section.links ? plural(section.links, "link") : `${plural(section.links, "link")} to ${plural(section.targets, "URL")}`;
  return { key, heading: `${title} (${count})`, items, moreTargets: Math.max(0, section.targets - items.length) };
}

/** "3 links broken before were not checked this time." */
function notChecked(n: number): string {
  return `${plural(n, "link")} broken before ${n === 1 ? "was" : "were"} not checked this time.`;
}

function titleOf(digest: Digest): { title: string; tone: Tone } {
  const domain = oneLine(digest.domain_name);
  const prefix = digest.test ? "[test] " : "";
  if (digest.status === "failed") return { title: `${prefix}${domain}: crawl failed`, tone: "failed" };
  const parts: string[] = [];
  if (digest.new_broken.links > 0) parts.push(`${plural(digest.new_broken.links, "new broken link")}`);
  if (digest.fixed.links > 0) parts.push(`${plural(digest.fixed.links, "link")} fixed`);
  if (parts.length > 0) return { title: `${prefix}${domain}: ${parts.join(", ")}`, tone: digest.new_broken.links > 0 ? "broken" : "fixed" };
  if (digest.broken_links > 0) return { title: `${prefix}${domain}: ${plural(digest.broken_links, "broken link")}, none new`, tone: "broken" };
  return { title: `${prefix}${domain}: no broken links`, tone: "clean" };
}

/** The message a digest reads as; `crawlUrl` is its dashboard page (null when server.public_url is unset). */
export function messageOf(digest: Digest, crawlUrl: string | null, now = Date.now()): Message {
  const { title, tone } = titleOf(digest);
  const counts = `${plural(digest.total_links, "link")} on ${plural(digest.pages_crawled, "page")}, ${plural(digest.broken_links, "broken link")}`;
  const ended =
    digest.status === "failed"
      ? `Crawl failed ${when(digest.completed_at)} after checking ${counts}.`
      : `Crawl completed ${when(digest.completed_at)}: ${counts}${digest.compared_with === null ? " (the domain's first crawl: every broken link is new)" : ""}.`;
  // Links open before that this crawl did not check are in no list: say how many, so silence is not read as fixed.
  const summary = digest.not_checked > 0 ? `${ended} ${notChecked(digest.not_checked)}` : ended;
  const warnings = [...digest.warnings];
  if (digest.previous_failed && digest.status === "completed") warnings.unshift("The domain's previous crawl had failed; this one completed.");
  const sections = [
    sectionOf("new_broken", digest.new_broken, "New broken links", now),
    sectionOf("still_broken", digest.still_broken, "Still broken", now),
    sectionOf("fixed", digest.fixed, "Fixed", now),
  ].filter((section): section is MessageSection => section !== null);
  return {
    tone,
    title,
    summary,
    failure: digest.status === "failed" ? `Why it failed: ${digest.error ?? "no reason was recorded"}` : null,
    warnings,
    sections,
    link: crawlUrl,
    footer: `linkpatrol · crawl ${digest.crawl_id}`,
  };
}

/** The dashboard page of crawl `crawlId` under `publicUrl` (server.public_url), or null without one. */
export function crawlPageUrl(publicUrl: string | null, crawlId: string): string | null {
  if (publicUrl === null) return null;
  return new URL(`ui/crawls/${encodeURIComponent(crawlId)}`, publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`).href;
}

import type { CrawlOptions } from "../../core/crawl-options.ts";
import { describeOptions } from "../../core/options-summary.ts";
import { hasUnshown, visibleText } from "../../core/visible-text.ts";
import type { CrawlDetailView, LinkView, OrphanPageView } from "../crawl-view.ts";

/**
 * A crawl's report as `linkpatrol check` writes it and the dashboard's downloads serve it, and its five
 * renderings. Pure: the caller gathers the data, these
 * functions only turn it into text, so every format shows the same links and the same totals. A big site has
 * hundreds of thousands of links, so the links are a stream read from the store and each rendering is a
 * stream of text chunks: neither is ever held whole in memory. The links come in the store's batches and a
 * rendering awaits once per batch, never per link.
 */

/** A stream of items in batches, as the store reads them (a plain array of batches in tests). */
export type Batches<T> = AsyncIterable<readonly T[]> | Iterable<readonly T[]>;

export interface CheckReport {
  url: string;
  options: CrawlOptions;
  summary: {
    status: string;
    error: string | null;
    /** The kind of failure (start_page, max_duration, …); null unless the crawl failed. */
    failure: string | null;
    /** What the counts alone would hide (nothing in scope, pages cut short, pages left unparsed). */
    warnings: string[];
    pages_crawled: number;
    /** Links the crawl recorded (before --include/--exclude). */
    total_links: number;
    broken_links: number;
    skipped_links: number;
    truncated: boolean;
    pages_cut: number;
    duration_ms: number;
    /** Links in this report (after --include/--exclude) and how many of them are broken. */
    reported_links: number;
    reported_broken: number;
    /** Pages the site's sitemaps list, and those no crawled page links to (`--sitemap`); null without it. */
    sitemap_urls?: number | null;
    orphan_pages?: number | null;
  };
  /** The reported links in report order; each call streams them again from the start. */
  links: () => Batches<LinkView>;
  /** The broken ones among them, in the same order, read without the rest (the text and markdown reports). */
  brokenLinks: () => Batches<LinkView>;
  /** The reported orphan pages (`--sitemap`): listed in a sitemap, linked from no crawled page; streamed like links. */
  orphans?: () => Batches<OrphanPageView>;
}

/** A report's summary from a crawl's detail, with how many links (and broken ones) the report itself holds. */
export function reportSummary(detail: CrawlDetailView, reported: { links: number; broken: number }): CheckReport["summary"] {
  return {
    status: detail.status,
    error: detail.error,
    failure: detail.failure,
    warnings: detail.warnings,
    pages_crawled: detail.pages_crawled,
    total_links: detail.total_links,
    broken_links: detail.broken_links,
    skipped_links: detail.skipped_links,
    truncated: detail.truncated,
    pages_cut: detail.pages_cut,
    // Stored wall-clock times: a clock stepped back during the run makes no negative duration.
    duration_ms: Math.max(0, Date.parse(detail.completed_at ?? new Date().toISOString()) - Date.parse(detail.started_at ?? detail.created_at)),
    reported_links: reported.links,
    reported_broken: reported.broken,
    sitemap_urls: detail.sitemap_urls,
    orphan_pages: detail.orphan_pages,
  };
}

function orphansOf(report: CheckReport): Batches<OrphanPageView> {
  return report.orphans?.() ?? [];
}

export const FORMATS = ["text", "json", "jsonl", "csv", "junit", "markdown"] as const;
export type ReportFormat = (typeof FORMATS)[number];

/** The report in `format` as chunks of text, ending with a newline. */
export function renderReport(report: CheckReport, format: ReportFormat): AsyncIterable<string> {
  return renderFormat(visibleReport(report), format);
}

/** `text` as visibleText writes it (core/visible-text.ts), null kept. */
function visible<T extends string | null>(text: T): T {
  return (text === null ? null : visibleText(text)) as T;
}

/** A link whose texts visibleText would change, changed; the same object otherwise (nearly always: texts are cleaned when stored). */
function visibleLink<T extends Pick<LinkView, "error" | "warning"> & { link_text?: string }>(link: T): T {
  const text = link.link_text ?? "";
  if (!hasUnshown(text) && (link.error === null || !hasUnshown(link.error)) && (link.warning === null || !hasUnshown(link.warning))) return link;
  return { ...link, ...(link.link_text !== undefined && { link_text: visibleText(text) }), error: visible(link.error), warning: visible(link.warning) };
}

async function* mapped<T>(batches: Batches<T>, map: (item: T) => T): AsyncGenerator<T[]> {
  for await (const batch of batches) yield batch.map(map);
}

/**
 * The report with every text a crawled site wrote (link texts, errors, warnings) as visibleText writes it:
 * control characters dropped, bidi controls made visible. The one place every format's text passes; URLs are
 * ASCII by construction (a parsed URL is percent-encoded, an href that does not parse is recorded encoded).
 */
function visibleReport(report: CheckReport): CheckReport {
  const { summary } = report;
  return {
    ...report,
    summary: { ...summary, error: visible(summary.error), warnings: summary.warnings.map(visibleText) },
    links: () => mapped(report.links(), visibleLink),
    brokenLinks: () => mapped(report.brokenLinks(), visibleLink),
    ...(report.orphans !== undefined && { orphans: () => mapped(report.orphans!(), visibleLink) }),
  };
}

async function* whole(text: Promise<string>): AsyncGenerator<string> {
  yield await text;
}

function renderFormat(report: CheckReport, format: ReportFormat): AsyncIterable<string> {
  switch (format) {
    case "text":
      return whole(text(report));
    case "json":
      return json(report);
    case "jsonl":
      return jsonLines(report);
    case "csv":
      return csv(report);
    case "junit":
      return junit(report);
    case "markdown":
      return whole(markdown(report));
  }
}

/**
 * `{url, options, summary, links: [...]}`: the head indented by two spaces, then one link per line, compact.
 * A line per link keeps the report greppable, and smaller and faster to write than indenting every field
 * (bench/README.md, "Crawl time and its growth").
 */
async function* json(report: CheckReport): AsyncGenerator<string> {
  const { url, options, summary } = report;
  yield `${JSON.stringify({ url, options, summary }, null, 2).slice(0, -2)},\n  "links": [`;
  let first = true;
  for await (const batch of report.links()) {
    let chunk = "";
    for (const link of batch) {
      chunk += `${first ? "" : ","}\n    ${JSON.stringify(link)}`;
      first = false;
    }
    yield chunk;
  }
  yield first ? "]" : "\n  ]";
  if (report.orphans !== undefined) {
    yield `,\n  "orphans": [`;
    first = true;
    for await (const batch of orphansOf(report)) {
      let chunk = "";
      for (const orphan of batch) {
        chunk += `${first ? "" : ","}\n    ${JSON.stringify(orphan)}`;
        first = false;
      }
      yield chunk;
    }
    yield first ? "]" : "\n  ]";
  }
  yield "\n}\n";
}

/**
 * JSON Lines: one object per line, each with a `type`. `{"type":"link", …the JSON report's link fields}` per
 * link in report order, then `{"type":"warning","message"}` per summary warning, then last
 * `{"type":"summary","url","options","summary"}` (the JSON report's head). A reader can take each line as it
 * comes, and a missing summary line tells a cut-off file from a complete one.
 */
async function* jsonLines(report: CheckReport): AsyncGenerator<string> {
  const { url, options, summary } = report;
  // The link's own JSON with the type spliced in: one stringify of one object shape per link.
  for await (const batch of report.links()) yield batch.map((link) => `{"type":"link",${JSON.stringify(link).slice(1)}\n`).join("");
  for await (const batch of orphansOf(report)) yield batch.map((orphan) => `{"type":"orphan",${JSON.stringify(orphan).slice(1)}\n`).join("");
  for (const message of summary.warnings) yield `${JSON.stringify({ type: "warning", message })}\n`;
  yield `${JSON.stringify({ type: "summary", url, options, summary })}\n`;
}

function why(link: Pick<LinkView, "error" | "status_code">): string {
  return link.error ?? (link.status_code === 0 ? "no answer" : `HTTP ${link.status_code}`);
}

/** Broken links grouped by the page they are on, in report order. */
async function brokenBySource(report: CheckReport): Promise<Map<string, LinkView[]>> {
  const groups = new Map<string, LinkView[]>();
  for await (const batch of report.brokenLinks()) {
    for (const link of batch) {
      const group = groups.get(link.source_url) ?? [];
      group.push(link);
      groups.set(link.source_url, group);
    }
  }
  return groups;
}

function summaryLine(report: CheckReport): string {
  const { summary } = report;
  const seconds = (summary.duration_ms / 1000).toFixed(1);
  return (
    `${summary.pages_crawled} pages, ${summary.reported_links} links, ${summary.reported_broken} broken` +
    (summary.skipped_links > 0 ? `, ${summary.skipped_links} skipped (robots.txt)` : "") +
    (summary.sitemap_urls != null ? `, ${summary.sitemap_urls} in sitemaps (${summary.orphan_pages ?? 0} orphan)` : "") +
    (summary.truncated ? ", truncated (page limit)" : "") +
    ` in ${seconds} s`
  );
}

async function text(report: CheckReport): Promise<string> {
  const lines = [`linkpatrol check ${report.url}`, `checked: ${describeOptions(report.options)}`, summaryLine(report)];
  if (report.summary.error !== null) lines.push(`crawl ${report.summary.status}: ${report.summary.error}`);
  for (const warning of report.summary.warnings) lines.push(`warning: ${warning}`);
  for (const [source, links] of await brokenBySource(report)) {
    lines.push("", source);
    for (const link of links) lines.push(`  ✗ ${link.url}  ${why(link)}${link.link_text ? `  "${link.link_text}"` : ""}`);
  }
  let heading = false;
  for await (const batch of orphansOf(report)) {
    for (const orphan of batch) {
      if (!heading) lines.push("", "orphan pages (listed in a sitemap, linked from no crawled page):");
      heading = true;
      lines.push(`  ○ ${orphan.url}  ${orphan.is_broken ? `✗ ${why(orphan)}` : why(orphan)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const CSV_COLUMNS = ["source_url", "url", "status_code", "is_broken", "kind", "link_text", "final_url", "error", "warning", "broken_since"] as const;

/** First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180: quote a field when it holds a comma, a quote or a line break; double the quotes. A field that a
 * spreadsheet would run as a formula (a crawled page writes its own link texts) gets a leading `'` first, which
 * spreadsheets read as "this is text" and do not show.
 */
function csvField(value: unknown): string {
  const raw = value === null || value === undefined ? "" : String(value);
  const text = FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

async function* csv(report: CheckReport): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(",")}\r\n`;
  for await (const batch of report.links()) yield batch.map((link) => `${CSV_COLUMNS.map((column) => csvField(link[column])).join(",")}\r\n`).join("");
}

function xml(text: string): string {
  // Characters XML 1.0 cannot carry at all are dropped; the rest is escaped.
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/** A failed crawl is one failing test case of its own, so a CI dashboard never shows it as an empty green suite. */
async function* junit(report: CheckReport): AsyncGenerator<string> {
  const { summary } = report;
  const seconds = (summary.duration_ms / 1000).toFixed(3);
  const failed = summary.status === "failed" ? 1 : 0;
  const tests = summary.reported_links + failed;
  const failures = summary.reported_broken + failed;
  yield [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="linkpatrol" tests="${tests}" failures="${failures}" time="${seconds}">`,
    `  <testsuite name="${xml(report.url)}" tests="${tests}" failures="${failures}" errors="0" time="${seconds}">\n`,
  ].join("\n");
  // What the crawl checked, and orphan pages (findings, not failures): properties of the suite, before its test cases.
  yield `    <properties>\n      <property name="options" value="${xml(describeOptions(report.options))}"/>\n`;
  for await (const batch of orphansOf(report)) {
    yield batch.map((orphan) => `      <property name="orphan_page" value="${xml(`${orphan.url} (${why(orphan)})`)}"/>\n`).join("");
  }
  yield "    </properties>\n";
  if (failed === 1) {
    const error = xml(summary.error ?? "the crawl failed");
    yield `    <testcase classname="linkpatrol" name="${xml(report.url)}">\n      <failure message="${error}" type="${xml(summary.failure ?? "crawl_failed")}">${error}</failure>\n    </testcase>\n`;
  }
  for await (const batch of report.links()) {
    let chunk = "";
    for (const link of batch) {
      const open = `    <testcase classname="${xml(link.source_url)}" name="${xml(link.url)}"`;
      chunk += link.is_broken
        ? `${open}>\n      <failure message="${xml(why(link))}" type="broken_link">${xml(`${link.kind} "${link.link_text}" on ${link.source_url}: ${why(link)}`)}</failure>\n    </testcase>\n`
        : `${open}/>\n`;
    }
    yield chunk;
  }
  yield "  </testsuite>\n</testsuites>\n";
}

const HTML_ENTITY: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;" };

/**
 * Text from a crawled page (a link text, a URL, an error) as markdown that renders as exactly that text, on one
 * table row: `<`, `>` and `&` as entities, so nothing opens an HTML tag, an autolink or an entity; every other
 * ASCII punctuation character backslash-escaped (CommonMark lets each be escaped and shows it as itself), so
 * nothing becomes a link, an image, emphasis, code, a table cell, nor a URL that GitHub would autolink (its
 * `:` and `.` are escaped); whitespace runs, line breaks included, as one space.
 */
function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/[!-/:-@[-`{-~]/g, (c) => HTML_ENTITY[c] ?? `\\${c}`);
}

async function markdown(report: CheckReport): Promise<string> {
  const { summary } = report;
  const lines = [
    `## Link check: ${cell(report.url)}`,
    "",
    // Our own words, not crawled text: nothing in them needs escaping.
    `Checked: ${describeOptions(report.options)}`,
    "",
    "| pages | links | broken | skipped | status |",
    "|---:|---:|---:|---:|---|",
    `| ${summary.pages_crawled} | ${summary.reported_links} | ${summary.reported_broken} | ${summary.skipped_links} | ${summary.status}${summary.truncated ? " (truncated)" : ""} |`,
  ];
  if (summary.error !== null) lines.push("", `**Crawl ${summary.status}:** ${cell(summary.error)}`);
  for (const warning of summary.warnings) lines.push("", `**Warning:** ${cell(warning)}`);
  if (summary.reported_broken > 0) {
    lines.push("", "| page | link | status | text |", "|---|---|---|---|");
    for await (const batch of report.brokenLinks()) {
      for (const link of batch) lines.push(`| ${cell(link.source_url)} | ${cell(link.url)} | ${cell(why(link))} | ${cell(link.link_text)} |`);
    }
  } else if (summary.status !== "failed") {
    lines.push("", "No broken links.");
  }
  let heading = false;
  for await (const batch of orphansOf(report)) {
    for (const orphan of batch) {
      if (!heading) lines.push("", "**Orphan pages** (listed in a sitemap, linked from no crawled page):", "", "| page | status |", "|---|---|");
      heading = true;
      lines.push(`| ${cell(orphan.url)} | ${cell(why(orphan))}${orphan.is_broken ? " (broken)" : ""} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}

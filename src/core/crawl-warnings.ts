import { MAX_SITEMAP_URLS, MAX_SITEMAPS, SITEMAP_MAX_BYTES, SITEMAP_MAX_DEPTH, SITEMAP_MAX_URLS, SITEMAP_PARSE_BUDGET_MS } from "./sitemap-limits.ts";

/**
 * A crawl's warnings as findings with a budget: aggregated per typed cause (a count and a few samples) and capped
 * per crawl, so what is stored and sent stays small whatever a site serves (docs/decisions.md, "Warnings are
 * findings with a budget").
 */

/** Why a crawl warns, as a closed set clients may match on (docs/api.md, "Warnings"). */
export const WARNING_CAUSES = [
  "no_links_in_scope", // the pages crawled have no link in scope (count: pages crawled)
  "pages_cut", // pages cut at max_body_bytes or max_links_per_page (count: pages)
  "truncated", // max_pages or max_depth left pages unparsed
  "sitemap_name_invalid", // a sitemap named somewhere is not an http(s) URL
  "sitemap_off_site", // a sitemap named somewhere is not on the crawled site
  "sitemaps_over_limit", // sitemaps named past the per-crawl limit (count: names not followed)
  "sitemap_failed", // a named sitemap could not be fetched or read
  "sitemap_cut", // a sitemap longer than the byte limit
  "sitemap_url_limit", // a sitemap listing more URLs than the per-sitemap limit
  "sitemap_not_a_sitemap", // neither a <urlset> nor a <sitemapindex>
  "sitemap_empty", // a sitemap that lists no entries
  "sitemap_too_deep", // markup nested deeper than any sitemap needs: reading stopped there
  "sitemap_too_slow", // reading took longer than the per-sitemap time budget: cut there
  "sitemap_entries_over_limit", // the sitemaps list more distinct URLs than the per-crawl limit
  "sitemap_entries_off_site", // entries not on the crawled site (count: entries)
  "sitemap_entries_invalid", // entries that are not http(s) URLs (count: entries)
  "soft_404_blind", // the soft-404 probe could not learn the site's "not found" page (sample: what it saw)
  "other", // a warning given as plain text; one entry per distinct text
  "omitted", // warnings not kept because the crawl's budget was spent (count: findings)
] as const;
export type WarningCause = (typeof WARNING_CAUSES)[number];

/** A typed cause a finding can name (`other` carries its text instead; `omitted` is the budget's own). */
type TypedWarningCause = Exclude<WarningCause, "other" | "omitted">;

/** One warning as it is found: a typed cause with what it is about, or plain text (an `other` warning). */
export type WarningFinding = { cause: TypedWarningCause; sample?: string; count?: number } | { cause: "other"; message: string };

/** What may be recorded as a warning: a finding, or plain text (the same as `{cause: "other", message}`). */
export type WarningInput = WarningFinding | string;

/** One cause of a crawl's warnings, aggregated: how often it was found and the first few things it was about. */
export interface WarningEntry {
  cause: WarningCause;
  /** The text of an `other` warning (what tells two of them apart); "" for every other cause. */
  message: string;
  count: number;
  samples: string[];
}

/** Samples kept per cause. */
export const MAX_WARNING_SAMPLES = 5;
/** Characters of one sample (and of an `other` warning's text) kept at most; the rest is cut with "…". */
export const MAX_SAMPLE_CHARS = 300;
/** Entries (causes, and distinct texts of `other`) kept per crawl; later new ones are counted as `omitted`. */
export const MAX_WARNING_ENTRIES = 32;
/** UTF-8 bytes of samples and texts kept per crawl; past it, samples are no longer kept and new entries are `omitted`. */
export const MAX_WARNING_BYTES = 16 * 1024;

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** `text` cut to MAX_SAMPLE_CHARS characters (never inside a surrogate pair). */
function boundedText(text: string): string {
  if (text.length <= MAX_SAMPLE_CHARS) return text;
  let end = MAX_SAMPLE_CHARS - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * The warnings of one crawl as they accumulate, within the budget: adding costs constant time and memory
 * whatever has been added before. Seed it with the stored entries to merge new findings into them.
 */
export class WarningTally {
  private readonly kept: WarningEntry[] = [];
  private readonly index = new Map<string, WarningEntry>();
  private bytes = 0;
  private omitted = 0;

  constructor(existing: readonly WarningEntry[] = []) {
    for (const entry of existing) this.merge(entry);
  }

  /** Records one finding (or plain text). */
  add(input: WarningInput): void {
    const finding: WarningFinding = typeof input === "string" ? { cause: "other", message: input } : input;
    if (finding.cause === "other") this.record("other", boundedText(finding.message), 1, []);
    else this.record(finding.cause, "", finding.count ?? 1, finding.sample === undefined ? [] : [finding.sample]);
  }

  /** Records many findings. */
  addAll(inputs: Iterable<WarningInput>): void {
    for (const input of inputs) this.add(input);
  }

  /** Merges an aggregated entry (a stored one, or another tally's). */
  merge(entry: WarningEntry): void {
    if (entry.cause === "omitted") this.omitted += entry.count;
    else this.record(entry.cause, entry.cause === "other" ? boundedText(entry.message) : "", entry.count, entry.samples);
  }

  /** Whether nothing was recorded. */
  get empty(): boolean {
    return this.kept.length === 0 && this.omitted === 0;
  }

  /** The entries in the order their causes were first found, then what the budget left out. */
  entries(): WarningEntry[] {
    const list = this.kept.map((entry) => ({ ...entry, samples: [...entry.samples] }));
    if (this.omitted > 0) list.push({ cause: "omitted", message: "", count: this.omitted, samples: [] });
    return list;
  }

  private record(cause: Exclude<WarningCause, "omitted">, message: string, count: number, samples: readonly string[]): void {
    const key = `${cause}\u0000${message}`;
    let entry = this.index.get(key);
    if (entry === undefined) {
      const cost = utf8Length(message);
      if (this.kept.length >= MAX_WARNING_ENTRIES || this.bytes + cost > MAX_WARNING_BYTES) {
        this.omitted += count;
        return;
      }
      entry = { cause, message, count: 0, samples: [] };
      this.bytes += cost;
      this.kept.push(entry);
      this.index.set(key, entry);
    }
    entry.count += count;
    for (const raw of samples) {
      if (entry.samples.length >= MAX_WARNING_SAMPLES) break;
      const sample = boundedText(raw);
      if (entry.samples.includes(sample)) continue;
      const cost = utf8Length(sample);
      if (this.bytes + cost > MAX_WARNING_BYTES) break;
      this.bytes += cost;
      entry.samples.push(sample);
    }
  }
}

/** `existing` entries with `added` merged in, within the budget. */
export function mergeWarnings(existing: readonly WarningEntry[], added: WarningTally | Iterable<WarningInput>): WarningEntry[] {
  const tally = new WarningTally(existing);
  if (added instanceof WarningTally) for (const entry of added.entries()) tally.merge(entry);
  else tally.addAll(added);
  return tally.entries();
}

/** `n` with the singular or plural noun phrase. */
function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The headline of a typed cause, for `n` findings. */
function headline(cause: TypedWarningCause, n: number): string {
  switch (cause) {
    case "no_links_in_scope":
      return (
        `no links to check: the ${n === 1 ? "page crawled has" : `${n} pages crawled have`} no link in scope ` +
        "(links to other hosts need follow_external; images, scripts and stylesheets need their scan option)"
      );
    case "pages_cut":
      return (
        `${plural(n, "page was", "pages were")} cut short by crawler.max_body_bytes or crawler.max_links_per_page: ` +
        "links past the cut were not checked; links to such a page carry a warning saying which"
      );
    case "truncated":
      return "max_pages or max_depth left pages unparsed: their links were not checked";
    case "sitemap_name_invalid":
      return `${plural(n, "sitemap name is", "sitemap names are")} not a valid http(s) URL; not read`;
    case "sitemap_off_site":
      return `${plural(n, "sitemap name points", "sitemap names point")} off the crawled site; not read`;
    case "sitemaps_over_limit":
      return `more than ${MAX_SITEMAPS} sitemaps: ${plural(n, "further sitemap name was", "further sitemap names were")} not read`;
    case "sitemap_failed":
      return `${plural(n, "named sitemap could not be read; its", "named sitemaps could not be read; their")} entries were not read`;
    case "sitemap_cut":
      return `${plural(n, "sitemap is", "sitemaps are")} longer than ${SITEMAP_MAX_BYTES} bytes; entries past that point were not read`;
    case "sitemap_url_limit":
      return `${plural(n, "sitemap lists", "sitemaps list")} more than ${SITEMAP_MAX_URLS} URLs; the rest were not read`;
    case "sitemap_not_a_sitemap":
      return `${plural(n, "sitemap is", "sitemaps are")} neither a <urlset> nor a <sitemapindex>; nothing was read from ${n === 1 ? "it" : "them"}`;
    case "sitemap_empty":
      return `${plural(n, "sitemap lists", "sitemaps list")} no entries`;
    case "sitemap_too_deep":
      return `${plural(n, "sitemap nests", "sitemaps nest")} elements more than ${SITEMAP_MAX_DEPTH} deep; reading stopped there, entries before it were kept`;
    case "sitemap_too_slow":
      return `${plural(n, "sitemap", "sitemaps")} took longer than ${SITEMAP_PARSE_BUDGET_MS / 1000} s to read; entries read before the cut were kept`;
    case "sitemap_entries_over_limit":
      return `the sitemaps list more than ${MAX_SITEMAP_URLS} distinct URLs; the rest were not checked`;
    case "sitemap_entries_off_site":
      return `${plural(n, "sitemap entry is", "sitemap entries are")} not on the crawled site; not checked`;
    case "sitemap_entries_invalid":
      return `${plural(n, "sitemap entry is", "sitemap entries are")} not a valid http(s) URL; not checked`;
    case "soft_404_blind":
      return "soft 404s are not detected in this crawl";
    default:
      return cause satisfies never;
  }
}

/** One entry as people read it: its headline, then the first samples ("first 5: …" when there were more). */
export function describeWarning(entry: WarningEntry): string {
  switch (entry.cause) {
    case "other":
      return entry.message;
    case "omitted":
      return (
        `${plural(entry.count, "further warning was", "further warnings were")} not kept: a crawl keeps at most ` +
        `${MAX_WARNING_ENTRIES} kinds of warning and ${MAX_WARNING_BYTES} bytes of their samples`
      );
    default: {
      // A soft-404 probe's sample is a whole sentence saying what it saw and what that means: shown as it is.
      if (entry.cause === "soft_404_blind" && entry.samples.length === 1) return entry.samples[0]!;
      const text = headline(entry.cause, entry.count);
      if (entry.samples.length === 0) return text;
      const lead = entry.count > entry.samples.length ? `first ${entry.samples.length}: ` : "";
      return `${text} (${lead}${entry.samples.join(", ")})`;
    }
  }
}

/** The entries as people read them, in order. */
export function describeWarnings(entries: readonly WarningEntry[]): string[] {
  return entries.map(describeWarning);
}

/** The machine-readable side of the entries, in the same order as their texts. */
export function warningCauses(entries: readonly WarningEntry[]): { cause: WarningCause; count: number }[] {
  return entries.map((entry) => ({ cause: entry.cause, count: entry.count }));
}

import type { IgnoreRules } from "../core/ignore-rules.ts";
import type { LinkVerdict } from "../core/link-outcome.ts";
import { UrlPatterns } from "../core/url-patterns.ts";
import type { FoundLink } from "./frontier.ts";

/**
 * A crawl's ignore rules where targets are decided (docs/api.md "Ignore rules"): `exclude` keeps a link out
 * entirely; `mute` keeps it checked and stored but never counted as broken.
 */
export class IgnoreGate {
  private readonly exclude: UrlPatterns;
  private readonly mute: UrlPatterns;

  constructor(rules: IgnoreRules) {
    this.exclude = new UrlPatterns(rules.exclude);
    this.mute = new UrlPatterns(rules.mute);
  }

  /** The `exclude` pattern that keeps `url` out, or null. */
  excludedBy(url: string): string | null {
    return this.exclude.size === 0 ? null : this.exclude.match(url);
  }

  /** Whether an `exclude` or a `mute` pattern matches `url`: this crawl's verdict on it is not its own (crawler/open-links.ts). */
  ignores(url: string): boolean {
    return this.excludedBy(url) !== null || (this.mute.size > 0 && this.mute.matches(url));
  }

  /** A page's gated links without the excluded ones (and how many went); those judged without a request are muted here. */
  filter(links: FoundLink[]): { links: FoundLink[]; excluded: number } {
    if (this.exclude.size === 0 && this.mute.size === 0) return { links, excluded: 0 };
    const kept: FoundLink[] = [];
    for (const link of links) {
      if (this.excludedBy(link.url) !== null) continue;
      kept.push(link.verdict === undefined ? link : { ...link, verdict: this.muted(link.url, link.verdict) });
    }
    return { links: kept, excluded: links.length - kept.length };
  }

  /** `verdict` for `url`, not broken when a `mute` pattern matches a broken one; the warning says which rule and what was found. */
  muted(url: string, verdict: LinkVerdict): LinkVerdict {
    if (!verdict.is_broken) return verdict;
    const found = verdict.status_code === 0 ? (verdict.error ?? "no answer") : `HTTP ${verdict.status_code}`;
    const warning = this.muteWarning(url, found);
    return warning === null ? verdict : { ...verdict, is_broken: false, warning: verdict.warning === null ? warning : `${warning}; ${verdict.warning}` };
  }

  /** The warning that stands for a broken verdict (`found`, in words) on `url` when a `mute` pattern matches it; null when none does. */
  muteWarning(url: string, found: string): string | null {
    const rule = this.mute.size === 0 ? null : this.mute.match(url);
    return rule === null ? null : `muted by ignore rule ${JSON.stringify(rule)}: ${found}, not counted as broken`;
  }
}

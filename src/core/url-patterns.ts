/**
 * URL patterns for `check --include/--exclude` and ignore rules: unanchored JavaScript regexps over the normalised
 * URL. One module, so the CLI and the service cannot read a pattern differently.
 */

/** Why `source` cannot be a URL pattern, or null when it can. */
export function patternProblem(source: string): string | null {
  if (source.trim() === "") return "is empty";
  try {
    new RegExp(source);
    return null;
  } catch (error) {
    return `is not a regular expression: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Why `source` may backtrack exponentially (a repeated group that repeats, like `(a+)+`), or null: a guard for
 * stored patterns, since a crawl tests every link with no time limit. Not a proof.
 */
export function repetitionProblem(source: string): string | null {
  // One entry per open group: whether something inside it repeats.
  const groups: boolean[] = [];
  let repeatsInside = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === "\\") {
      i++;
      continue;
    }
    if (char === "[") {
      // A class is one atom: skip to its closing bracket (escapes included).
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      continue;
    }
    if (char === "(") {
      groups.push(repeatsInside);
      repeatsInside = false;
      continue;
    }
    if (char === ")") {
      const inner: boolean = repeatsInside;
      repeatsInside = groups.pop() ?? false;
      const after = source.slice(i + 1);
      const repeated = /^(?:[*+]|\{\d*,\d*\}|\{\d{2,}\})/.test(after);
      if (repeated && inner) return "repeats a group that itself repeats (like (a+)+), which can take exponential time; write it without the nested repetition";
      repeatsInside ||= inner || repeated;
      continue;
    }
    if (char === "*" || char === "+" || (char === "{" && /^\{\d*,?\d*\}/.test(source.slice(i)))) repeatsInside = true;
  }
  return null;
}

/** A list of patterns, compiled once; every source must have passed `patternProblem`. */
export class UrlPatterns {
  private readonly compiled: { source: string; pattern: RegExp }[];

  constructor(sources: readonly string[]) {
    this.compiled = sources.map((source) => ({ source, pattern: new RegExp(source) }));
  }

  get size(): number {
    return this.compiled.length;
  }

  /** The first pattern that matches somewhere in `url`, as written; null when none does. */
  match(url: string): string | null {
    for (const { source, pattern } of this.compiled) if (pattern.test(url)) return source;
    return null;
  }

  /** True when some pattern matches `url`. */
  matches(url: string): boolean {
    return this.match(url) !== null;
  }
}

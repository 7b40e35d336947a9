import { patternProblem, repetitionProblem } from "./url-patterns.ts";

/**
 * A domain's ignore rules (docs/api.md "Ignore rules"). A crawl keeps the rules its domain had when it was created,
 * so an edit never changes a crawl under way. Free of zod: crawl workers read it.
 */
export interface IgnoreRules {
  exclude: string[];
  mute: string[];
}

/** The two lists, in the order they are shown and validated. */
const IGNORE_RULE_LISTS = ["exclude", "mute"] as const;

/** Patterns per list at most, and characters per pattern. */
export const MAX_RULES_PER_LIST = 100;
export const MAX_RULE_LENGTH = 500;

/** No rule at all. */
export function noIgnoreRules(): IgnoreRules {
  return { exclude: [], mute: [] };
}

/** Rules as read back from the store (null or a list left out: none). */
export function storedIgnoreRules(stored: Partial<IgnoreRules> | null | undefined): IgnoreRules {
  return { exclude: stored?.exclude ?? [], mute: stored?.mute ?? [] };
}

/** True when there is no rule in either list. */
export function hasNoRules(rules: IgnoreRules): boolean {
  return rules.exclude.length === 0 && rules.mute.length === 0;
}

/** One problem with a rule: the field (`ignore_rules.exclude.2`) and the reason in words. */
interface RuleProblem {
  field: string;
  message: string;
}

/** Every problem of `rules`: a pattern too long, not a regular expression, or with a repetition that can run away. */
export function ignoreRulesProblems(rules: IgnoreRules): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const list of IGNORE_RULE_LISTS) {
    if (rules[list].length > MAX_RULES_PER_LIST) problems.push({ field: `ignore_rules.${list}`, message: `at most ${MAX_RULES_PER_LIST} patterns` });
    rules[list].forEach((source, i) => {
      const problem = source.length > MAX_RULE_LENGTH ? `is longer than ${MAX_RULE_LENGTH} characters` : (patternProblem(source) ?? repetitionProblem(source));
      if (problem !== null) problems.push({ field: `ignore_rules.${list}.${i}`, message: `${JSON.stringify(source)} ${problem}` });
    });
  }
  return problems;
}

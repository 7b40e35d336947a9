import { z } from "zod";
import { ignoreRulesProblems, MAX_RULE_LENGTH, MAX_RULES_PER_LIST } from "./ignore-rules.ts";

/**
 * Ignore rules as the API takes and shows them (core/ignore-rules.ts says what they mean): validated here, so a
 * pattern that is not a regular expression is a 400 naming it. A list left out is empty.
 */
const patterns = (description: string) => z.array(z.string().min(1).max(MAX_RULE_LENGTH)).max(MAX_RULES_PER_LIST).default([]).meta({ description });

export const IgnoreRulesSchema = z
  .strictObject({
    exclude: patterns("URL patterns never checked: not fetched, not recorded, counted in a crawl's excluded_links"),
    mute: patterns("URL patterns checked but never counted as broken: shown with is_broken false and a warning naming the rule"),
  })
  .superRefine((rules, ctx) => {
    for (const problem of ignoreRulesProblems(rules)) {
      // Paths relative to this object; the field names the list and the index.
      ctx.addIssue({
        code: "custom",
        message: problem.message,
        path: problem.field
          .split(".")
          .slice(1)
          .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
      });
    }
  })
  .meta({ id: "IgnoreRules" });

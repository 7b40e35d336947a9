import type { StoredLinkKind } from "./schema.ts";

/** A recorded link with its target's verdict, as links.repo.ts reads it and target-verdicts.ts builds it. */
export interface LinkRecord {
  url: string;
  source_url: string;
  status_code: number;
  is_broken: boolean;
  link_text: string;
  kind: StoredLinkKind;
  final_url: string | null;
  error: string | null;
  warning: string | null;
}

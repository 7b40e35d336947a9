import type { Message, MessageItem } from "./message.ts";

/**
 * Bounding by dropping, never by failing, so a digest arrives whatever the crawl found: keep the leading items
 * that fit the budget, then "and N more" (counted in the budget too).
 */

/** Measures a rendered piece (characters, UTF-8 bytes, JSON bytes…). */
export type Size<T> = (piece: T) => number;

/** "and 12 more" with the noun a list counts. */
export function andMore(n: number, noun = "more"): string {
  return `and ${n.toLocaleString("en-US")} ${noun}`;
}

/**
 * The leading `pieces` whose total size, with the "more" piece that counts what is left out (plus `hidden`
 * items already left out before), stays within `budget`; the "more" piece ends the list when anything is left
 * out. `more` must fit the budget on its own.
 */
export function fitPieces<T>(pieces: readonly T[], budget: number, size: Size<T>, more: (n: number) => T, hidden = 0): T[] {
  const kept: T[] = [];
  let used = 0;
  for (let i = 0; i < pieces.length; i++) {
    const cost = size(pieces[i]!);
    const leftAfter = pieces.length - i - 1 + hidden;
    const moreCost = leftAfter > 0 ? size(more(leftAfter)) : 0;
    if (used + cost + moreCost > budget) break;
    kept.push(pieces[i]!);
    used += cost;
  }
  const left = pieces.length - kept.length + hidden;
  if (left > 0) kept.push(more(left));
  return kept;
}

/**
 * An item rendered within `max`: with all its linking pages when that fits, else with fewer (the rest counted in
 * `moreSources`), else with none; null when even that is too big (the caller then counts it as left out).
 */
export function boundedItem<T>(item: MessageItem, render: (item: MessageItem) => T, size: Size<T>, max: number): T | null {
  for (let keep = item.sources.length; keep >= 0; keep--) {
    const trimmed = { ...item, sources: item.sources.slice(0, keep), moreSources: item.moreSources + item.sources.length - keep };
    const piece = render(trimmed);
    if (size(piece) <= max) return piece;
  }
  return null;
}

/**
 * `message` with listed targets dropped, last first from the longest list, until its render fits `max`. Each
 * round drops as many as the excess is worth, so a large digest takes a few renders, not one per target.
 */
export function shrinkToFit(message: Message, render: (message: Message) => string, size: Size<string>, max: number): Message {
  let current = message;
  // Bounded: every round drops at least one of the finitely many listed items, or stops.
  for (let measured = size(render(current)); measured > max; measured = size(render(current))) {
    const listed = current.sections.reduce((sum, section) => sum + section.items.length, 0);
    if (listed === 0) break;
    const drop = Math.max(1, Math.ceil(((measured - max) / measured) * listed));
    const sections = current.sections.map((section) => ({ ...section, items: [...section.items] }));
    for (let i = 0; i < drop; i++) {
      const longest = sections.reduce((best, section, at) => (section.items.length > sections[best]!.items.length ? at : best), 0);
      const section = sections[longest]!;
      if (section.items.length === 0) break;
      section.items.pop();
      section.moreTargets += 1;
    }
    current = { ...current, sections };
  }
  return current;
}

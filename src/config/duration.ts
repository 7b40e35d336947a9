import { z } from "zod";

/**
 * Durations in config read as a number of seconds or a string with a unit ("500ms", "10s", "5m", "2h", "1d"),
 * and are held in milliseconds inside the program.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** Parses "10s"-style text or a number of seconds to milliseconds; null when it is not a duration. */
export function parseDurationMs(value: string | number): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? Math.round(value * 1_000) : null;
  const match = DURATION_PATTERN.exec(value.trim());
  if (!match) return null;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** `ms` in the largest unit that writes it whole, as a config file would ("10m", "1500ms"). */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) if (ms !== 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}

/** A zod schema for a duration bounded to [minMs, maxMs], output in milliseconds. */
export function duration(minMs: number, maxMs: number) {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = parseDurationMs(value);
    if (ms === null) {
      ctx.addIssue({ code: "custom", message: `not a duration: ${JSON.stringify(value)} (use e.g. 500ms, 10s, 5m, 2h)` });
      return z.NEVER;
    }
    if (ms < minMs || ms > maxMs) {
      ctx.addIssue({ code: "custom", message: `must be between ${formatDuration(minMs)} and ${formatDuration(maxMs)} (got ${formatDuration(ms)})` });
      return z.NEVER;
    }
    return ms;
  });
}

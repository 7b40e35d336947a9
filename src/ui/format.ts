/** How times and numbers read on the dashboard: UTC to the minute on the server (the script shows the reader's zone), relative where that helps. */

/** "2026-11-25 14:31 UTC", or "—" for none. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "2026-11-25 14:31:05 UTC": for a moment the reader compares with a live count. */
export function whenToTheSecond(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "3 min ago" / "in 2 h" relative to `now`. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined) return "";
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const units: [number, string][] = [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
    [1_000, "s"],
  ];
  const [size, unit] = units.find(([ms]) => abs >= ms) ?? [1_000, "s"];
  const amount = Math.round(abs / size);
  return diff < 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`;
}

/** 12,345. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : n.toLocaleString("en-US");
}

/** Seconds between two instants, at least 1. */
export function seconds(fromIso: string | null, toIso: string | null, now = Date.now()): number {
  if (fromIso === null) return 1;
  const end = toIso === null ? now : new Date(toIso).getTime();
  return Math.max(1, (end - new Date(fromIso).getTime()) / 1000);
}

/** "12 days", "1 day", "5 h", "3 min", "4 s": how long `ms` is, to the largest whole unit. */
function span(ms: number): string {
  const units: [number, string, string][] = [
    [86_400_000, "day", "days"],
    [3_600_000, "h", "h"],
    [60_000, "min", "min"],
    [1_000, "s", "s"],
  ];
  const [size, one, many] = units.find(([unit]) => ms >= unit) ?? units[units.length - 1]!;
  const amount = Math.max(1, Math.floor(ms / size));
  return `${amount} ${amount === 1 ? one : many}`;
}

/**
 * How long a link had been broken when the crawl started: "broken for 12 days", or "new in this crawl" when
 * this crawl is the first that found it broken (its broken_since is the crawl's start).
 */
export function brokenFor(since: string | null, crawlStartedAt: string | null): string {
  if (since === null || crawlStartedAt === null) return "";
  const ms = Date.parse(crawlStartedAt) - Date.parse(since);
  return ms <= 0 ? "new in this crawl" : `broken for ${span(ms)}`;
}

/** "2026-11-30 03:00" as the wall clock of IANA zone `zone` reads at `iso`; null when the zone is unknown. */
export function inZone(iso: string, zone: string): string | null {
  try {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(new Date(iso));
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
    return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}`;
  } catch {
    return null;
  }
}

/** "1 h 5 min", "3 min 20 s", "45 s": a duration to two units, for estimates. */
export function duration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return s % 60 === 0 ? `${minutes} min` : `${minutes} min ${s % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

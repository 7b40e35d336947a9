/**
 * The comparison as markdown: one table of counts and costs, then per site the broken URLs the tools do
 * not all agree on, with what each tool said and a page to look at. URLs are shown as paths: the port
 * changes with every run, the path does not, so two reports can be diffed.
 */
import type { RealSite } from "./sites.ts";
import { brokenCount, type TargetSeen, type ToolResult } from "./result.ts";

export interface SiteRun {
  site: RealSite;
  origin: string;
  results: ToolResult[];
}

/** Rows shown per site in the disagreement table; the JSON file has them all. */
const MAX_ROWS = 60;

const fmt = (v: number | null | undefined, digits = 1) => (v === null || v === undefined ? "–" : v.toFixed(digits));

function path(url: string | null, origin: string): string {
  if (url === null) return "–";
  return url.startsWith(origin) ? url.slice(origin.length) || "/" : url;
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replace(/\s+/g, " ").slice(0, 160);
}

/**
 * The main table: site, tool, pages, distinct targets, broken targets, wall s, CPU s, peak RSS MiB. Pages are
 * nginx's count (HTML GET 200); a tool's own count, when it has one and differs, goes into the notes.
 */
export function resultsTable(runs: SiteRun[]): string {
  const lines = ["| site | tool | pages | distinct targets | broken targets | wall s | CPU s | peak RSS MiB |", "|---|---|---:|---:|---:|---:|---:|---:|"];
  const notes: string[] = [];
  for (const run of runs) {
    for (const r of run.results) {
      const mark = r.outcome === "ok" ? "" : ` (${r.outcome})`;
      if (r.outcome !== "ok" || r.note !== null) notes.push(`- ${run.site.name}, ${r.tool}: ${r.outcome}${r.note === null ? "" : ` — ${r.note}`}`);
      if (r.ownPages !== null && r.ownPages !== r.pagesFetched)
        notes.push(`- ${run.site.name}, ${r.tool}: own page count ${r.ownPages}, nginx's ${r.pagesFetched ?? "–"}`);
      const m = r.measured;
      lines.push(
        `| ${run.site.name} | ${r.tool}${mark} | ${r.pagesFetched ?? "–"} | ${r.targets.size} | ${brokenCount(r)} | ${fmt(m.wall_s, 2)} | ${fmt(m.cpu_s, 2)} | ${fmt(m.peak_rss_mib)} |`,
      );
    }
  }
  return [...lines, ...(notes.length > 0 ? ["", ...notes] : [])].join("\n");
}

export interface Disagreement {
  url: string;
  /** Per tool: "broken", "ok" or "not seen", with the tool's detail. */
  verdicts: Record<string, { said: "broken" | "ok" | "not seen"; detail: string; source: string | null }>;
}

/** Broken URLs (per any tool) that not every tool reports as broken, sorted by URL. */
export function disagreements(run: SiteRun): Disagreement[] {
  const union = new Set<string>();
  for (const r of run.results) for (const [url, seen] of r.targets) if (seen.broken) union.add(url);
  const list: Disagreement[] = [];
  for (const url of [...union].sort()) {
    const seen: [string, TargetSeen | undefined][] = run.results.map((r) => [r.tool, r.targets.get(url)]);
    if (seen.every(([, s]) => s?.broken === true)) continue;
    const verdicts: Disagreement["verdicts"] = {};
    for (const [tool, s] of seen) {
      verdicts[tool] =
        s === undefined ? { said: "not seen", detail: "", source: null } : { said: s.broken ? "broken" : "ok", detail: s.detail, source: s.source };
    }
    list.push({ url, verdicts });
  }
  return list;
}

/** Markdown for one site's disagreements. */
export function disagreementSection(run: SiteRun, list: Disagreement[]): string {
  const tools = run.results.map((r) => r.tool);
  const head = `### ${run.site.name} (${run.site.generator}): ${list.length} broken URL${list.length === 1 ? "" : "s"} not reported by every tool`;
  if (list.length === 0) return `${head}\n`;
  const lines = [head, "", `| target | ${tools.join(" | ")} | found on |`, `|---|${tools.map(() => "---").join("|")}|---|`];
  for (const d of list.slice(0, MAX_ROWS)) {
    const source = Object.values(d.verdicts).find((v) => v.said === "broken")?.source ?? null;
    const cells = tools.map((tool) => {
      const v = d.verdicts[tool]!;
      return cell(v.said === "not seen" ? "not seen" : `${v.said}: ${v.detail}`);
    });
    lines.push(`| ${cell(path(d.url, run.origin))} | ${cells.join(" | ")} | ${cell(path(source, run.origin))} |`);
  }
  if (list.length > MAX_ROWS) lines.push("", `(${list.length - MAX_ROWS} more in the JSON file)`);
  return `${lines.join("\n")}\n`;
}

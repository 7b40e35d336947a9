/**
 * What each crawl option costs: `linkpatrol check` on the realistic synthetic site (10k pages by default) with
 * a base set of options, then with one option more, in paired rounds whose order alternates (so drift on a
 * shared machine falls on both sides), reporting median wall time and peak RSS per variant and the ratio to
 * the base. A `--baseline-binary` (an older build) adds a variant with the same base options, to show that a
 * crawl with the new options off costs what it did before them.
 *
 *   bun bench/option-cost.ts [--pages N] [--rounds R] [--binary FILE] [--baseline-binary FILE]
 *
 * Counts come from the head of each run's JSON report (json, not jsonl, so older builds can be measured too);
 * a run that exits 2 (the crawl failed) voids its variant.
 * The site has no sitemap, so `--sitemap` costs the look-up of robots.txt's Sitemap lines and /sitemap.xml.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSyntheticSite } from "../test/fixtures/site-generator.ts";
import { mib, round, runMeasured } from "./lib/proc.ts";

interface Variant {
  name: string;
  binary: string;
  flags: string[];
}

interface Sample {
  wall_s: number;
  peak_rss_mib: number | null;
  links: number | null;
  broken: number | null;
}

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    binary: { type: "string", default: "dist/linkpatrol" },
    "baseline-binary": { type: "string" },
  },
});
const pages = Number(values.pages);
const rounds = Number(values.rounds);
if (!Number.isInteger(pages) || pages < 100 || !Number.isInteger(rounds) || rounds < 1 || rounds > 20) {
  throw new Error("usage: bun bench/option-cost.ts [--pages N>=100] [--rounds 1..20] [--binary FILE] [--baseline-binary FILE]");
}

const BASE = ["--images", "--scripts"];
const binary = resolve(values.binary);
const variants: Variant[] = [
  { name: "base (images, scripts)", binary, flags: BASE },
  { name: "+ stylesheets (CSS read)", binary, flags: [...BASE, "--stylesheets"] },
  { name: "+ media", binary, flags: [...BASE, "--media"] },
  { name: "+ fragments", binary, flags: [...BASE, "--fragments"] },
  { name: "+ sitemap", binary, flags: [...BASE, "--sitemap"] },
  { name: "all kinds + fragments + sitemap", binary, flags: [...BASE, "--stylesheets", "--media", "--fragments", "--sitemap"] },
];
if (values["baseline-binary"] !== undefined)
  variants.unshift({ name: "baseline build, base options", binary: resolve(values["baseline-binary"]), flags: BASE });

const site = await startSyntheticSite({ pages, profile: "realistic" });
const dir = mkdtempSync(join(tmpdir(), "lp-option-cost-"));
const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));

/** The counts in the summary at the head of a JSON report (read without parsing its links), or nulls. */
function summaryOf(path: string): Pick<Sample, "links" | "broken"> {
  try {
    const fd = openSync(path, "r");
    const head = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, head, 0, HEAD_BYTES, 0);
    closeSync(fd);
    const text = head.subarray(0, read).toString("utf8");
    const count = (field: string) => {
      const match = new RegExp(`"${field}":\\s*(\\d+)`).exec(text);
      return match === null ? null : Number(match[1]);
    };
    return { links: count("total_links"), broken: count("broken_links") };
  } catch {
    return { links: null, broken: null };
  }
}

/** The report's head holds its summary; its links follow. */
const HEAD_BYTES = 64 * 1024;

try {
  console.error(`[option-cost] realistic site, ${pages} pages at ${site.rootUrl}; ${rounds} rounds of ${variants.length} variants`);
  for (let round_ = 0; round_ < rounds; round_++) {
    const order = round_ % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      const report = join(dir, "report.json");
      const cmd = [
        variant.binary,
        "check",
        site.rootUrl,
        ...variant.flags,
        "--concurrency",
        "32",
        "--max-pages",
        String(pages + 1000),
        "--allow-private",
        "--format",
        "json",
        "--output",
        report,
      ];
      const run = await runMeasured(cmd, { cwd: dir, timeoutS: Math.max(300, pages / 20) });
      const counts = summaryOf(report);
      rmSync(report, { force: true });
      if (run.exit_code === 2 || run.timed_out) {
        console.error(`[option-cost] ${variant.name}: exit ${run.exit_code}${run.timed_out ? " (timed out)" : ""}; variant voided this round`);
        continue;
      }
      samples.get(variant.name)!.push({ wall_s: run.wall_s, peak_rss_mib: run.peak_rss_mib, ...counts });
      console.error(`[option-cost] round ${round_ + 1} ${variant.name}: ${round(run.wall_s)} s, ${run.peak_rss_mib} MiB, ${counts.links} links`);
    }
  }
} finally {
  await site.stop();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const baseName = variants.find((v) => v.binary === binary)!.name;
const baseWall = median(samples.get(baseName)!.map((s) => s.wall_s));
console.log(`option cost: realistic site, ${pages} pages, ${rounds} paired rounds, medians (check, concurrency 32)`);
console.log("| variant | wall s | × base | peak RSS MiB | links | broken |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const variant of variants) {
  const runs = samples.get(variant.name)!;
  const wall = median(runs.map((s) => s.wall_s));
  const rss = median(runs.flatMap((s) => (s.peak_rss_mib === null ? [] : [s.peak_rss_mib])));
  const ratio = wall !== null && baseWall !== null ? round(wall / baseWall) : null;
  const last = runs.at(-1);
  console.log(
    `| ${variant.name} | ${wall === null ? "—" : round(wall)} | ${ratio ?? "—"} | ${rss === null ? "—" : mib(rss * 1024)} | ${last?.links ?? "—"} | ${last?.broken ?? "—"} |`,
  );
}

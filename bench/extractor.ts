/**
 * The page reader alone, JS scanner against Wasm, on real pages read from disk first: bytes in 64 KiB pieces →
 * PageReading (decode.ts → extract.ts → html-scanner.ts or wasm/page-reader.ts), the pages' links resolved at
 * the end as in a crawl. Paired rounds (JS, Wasm, JS, Wasm, …) so both see the same load; µs per page, min and
 * median over the rounds, of wall time and of the process's CPU time (less moved by other processes' load). Usage:
 *   bun bench/extractor.ts [--dir /usr/share/doc/python3-doc/html] [--rounds 12] [--only js|wasm] [--options ids,css]
 * `--only` runs one reader for `--rounds` rounds (for an instruction count: perf stat -e instructions -- bun …).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PageReading } from "../src/crawler/page-reading.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: "/usr/share/doc/python3-doc/html" },
    rounds: { type: "string", default: "12" },
    only: { type: "string" },
    options: { type: "string", default: "" },
  },
});
const rounds = Number(values.rounds);
const flags = new Set(values.options!.split(",").filter(Boolean));

const pages: { url: string; body: Uint8Array }[] = [];
const walk = (dir: string, rel: string): void => {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, `${rel}${entry}/`);
    else if (entry.endsWith(".html")) pages.push({ url: `http://127.0.0.1:8000/${rel}${entry}`, body: readFileSync(path) });
  }
};
walk(values.dir!, "");
const bytes = pages.reduce((sum, page) => sum + page.body.length, 0);

/** One pass over every page; the links found, so that the work is not optimised away. */
function pass(jsScanner: boolean): number {
  let links = 0;
  for (const page of pages) {
    const reading = new PageReading(page.url, "text/html", { collectIds: flags.has("ids"), scanCss: flags.has("css"), jsScanner }, null);
    for (let at = 0; at < page.body.length; at += 65536) reading.consumer(page.body.subarray(at, at + 65536));
    links += reading.finish(false).links.length;
  }
  return links;
}

const readers = values.only === undefined ? ["js", "wasm"] : [values.only];
const times = new Map<string, number[]>(readers.map((reader) => [reader, []]));
const cpuTimes = new Map<string, number[]>(readers.map((reader) => [reader, []]));
const found = new Map<string, number>();
for (const reader of readers) found.set(reader, pass(reader === "js")); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const reader of readers) {
    const start = Bun.nanoseconds();
    const cpu = process.cpuUsage();
    pass(reader === "js");
    const used = process.cpuUsage(cpu);
    times.get(reader)!.push((Bun.nanoseconds() - start) / 1000 / pages.length);
    cpuTimes.get(reader)!.push((used.user + used.system) / pages.length);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${pages.length} pages, ${(bytes / pages.length / 1024).toFixed(1)} KiB each; options: ${[...flags].join(",") || "none"}; ${rounds} paired rounds`);
for (const [reader, xs] of times) {
  const cpu = cpuTimes.get(reader)!;
  console.log(
    `${reader.padEnd(4)} wall min ${Math.min(...xs).toFixed(0)} µs/page, median ${median(xs).toFixed(0)}; ` +
      `CPU min ${Math.min(...cpu).toFixed(0)} µs/page, median ${median(cpu).toFixed(0)}; ${found.get(reader)} links`,
  );
}
if (readers.length === 2) {
  for (const [what, series] of [
    ["wall", times],
    ["CPU", cpuTimes],
  ] as const) {
    const [js, wasm] = [series.get("js")!, series.get("wasm")!];
    const ratios = js.map((t, k) => t / wasm[k]!);
    console.log(
      `js / wasm ${what} per paired round: median ${median(ratios).toFixed(2)} x (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    );
  }
}

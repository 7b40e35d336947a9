/**
 * Reads a `linkpatrol check --format json` report line by line (src/cli/check-report.ts writes the head, then
 * one link per line). A 50,000-page report is 640 MB: parsed whole, it and its 2.2 million link objects sat in
 * the heap of the benchmark process, which also serves the site to every run after it, so the report is
 * scanned in 1 MiB reads, each link line parsed alone.
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface CheckReportScan {
  /** The report's `summary` object. */
  summary: any;
  /** Link lines read. */
  links: number;
  /** URLs of the links marked `is_broken`. */
  brokenUrls: Set<string>;
}

const READ_BYTES = 1 << 20;

/** The lines of a UTF-8 file, without their line ends, read a block at a time. */
export function* lines(path: string): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(READ_BYTES);
    const decoder = new TextDecoder();
    let rest = "";
    for (;;) {
      const read = readSync(fd, buffer, 0, READ_BYTES, null);
      const text = rest + decoder.decode(buffer.subarray(0, read), { stream: read > 0 });
      const parts = text.split("\n");
      rest = parts.pop()!;
      yield* parts;
      if (read === 0) break;
    }
    if (rest !== "") yield rest;
  } finally {
    closeSync(fd);
  }
}

/** Scans the report at `path`; throws when its shape is not the one check writes. */
export function scanCheckReport(path: string): CheckReportScan {
  let head = "";
  let summary: any = null;
  let links = 0;
  let closed = false;
  const brokenUrls = new Set<string>();
  for (const line of lines(path)) {
    if (summary === null) {
      // The head ends with the line that opens the links array (`"links": [`, or `"links": []` when empty).
      const opening = /^ {2}"links": \[(\])?$/.exec(line);
      if (opening === null) {
        head += `${line}\n`;
        continue;
      }
      summary = JSON.parse(`${head.replace(/,\s*$/, "")}\n}`).summary;
      closed = opening[1] !== undefined;
      continue;
    }
    if (line.startsWith("    {")) {
      const link = JSON.parse(line.endsWith(",") ? line.slice(0, -1) : line) as { url: string; is_broken: boolean };
      links++;
      if (link.is_broken) brokenUrls.add(link.url);
    } else if (line === "  ]") closed = true;
    else if (line !== "}" && line !== "") throw new Error(`unexpected line in the check report: ${line.slice(0, 120)}`);
  }
  if (summary === null || !closed) throw new Error("the check report ended before its links did");
  return { summary, links, brokenUrls };
}

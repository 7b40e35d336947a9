/**
 * Pages fetched, counted the same way for every tool: from nginx's side. The tools' own outputs do not
 * agree on what a page is (LinkChecker logs each URL once, under the first page that linked it; wget2's CSV
 * has no content type), but every one of them must GET an HTML page to parse it, and nginx logs that. A
 * tool's share of the log is what was appended between its start and its end (the tools run one at a time).
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { normalizeTarget } from "./normalize.ts";

/** The log's current size: where the next tool's requests will start. */
export function logOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readFrom(path: string, offset: number): string {
  const length = logOffset(path) - offset;
  if (length <= 0) return "";
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}

/** Distinct HTML pages (normal form) answered 200 to a GET since `offset`, per the `harness` log format. */
export function htmlPagesFetched(path: string, offset: number, origin: string): Set<string> {
  const pages = new Set<string>();
  for (const line of readFrom(path, offset).split("\n")) {
    const m = /^GET 200 "text\/html[^"]*" (.+)$/.exec(line);
    if (m !== null) pages.add(normalizeTarget(`${origin}${m[1]}`));
  }
  return pages;
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A crawled site writes the link texts and URLs that end up in `linkpatrol check`'s reports. In the markdown
 * report (pasted into PR comments and CI job summaries) none of them may become HTML, a link, an image or table
 * structure; in the CSV report none may start a cell that a spreadsheet runs as a formula.
 */

/** Link texts as the page's reader sees them (the page carries them entity-escaped where HTML needs it). */
const TEXTS = {
  html: "<img src=x onerror=alert(1)>",
  link: "[x](javascript:alert(1))",
  image: "![pic](http://evil.example/p.png)",
  table: "a | b | c",
  emphasis: "**bold** _it_ `code` ~~s~~ \\ #1 www.evil.example $x$",
  formula: '=HYPERLINK("http://evil.example","x")',
  plus: "+1+2",
  minus: "-2+3",
  at: "@SUM(1,2)",
};
const HTML_ESCAPE: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" };
const html = (text: string) => text.replace(/[<>&"]/g, (c) => HTML_ESCAPE[c]!);

let site: LoopbackSite;
beforeAll(async () => {
  const anchors = Object.entries(TEXTS).map(([name, text]) => `<a href="/gone-${name}">${html(text)}</a>`);
  // A URL carrying markdown syntax itself (WHATWG URL parsing leaves [ ] ( ) ! * _ | in a path as they are).
  anchors.push(`<a href="/x](javascript:alert(1))![i](/p.png)*_|">url payload</a>`);
  site = await startLoopbackSite({ "/": { body: `<html><body>${anchors.join("\n")}</body></html>` } });
});
afterAll(() => site?.stop());

const check = (format: string) => runCli(["check", site.url("/"), "--allow-private", "--timeout", "2s", "--format", format], { timeoutMs: 30_000 });

/** Splits a markdown table row at its unescaped pipes (a backslash escapes the character after it). */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\") {
      cell += row.slice(i, i + 2);
      i++;
    } else if (row[i] === "|") {
      out.push(cell);
      cell = "";
    } else cell += row[i];
  }
  out.push(cell);
  return out.slice(1, -1).map((c) => c.trim());
}

/** What a CommonMark renderer shows for escaped text: backslash escapes and the three entities undone. */
function rendered(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

describe("--format markdown", () => {
  test("link texts and URLs stay text: no HTML, no link or image syntax, the table intact", async () => {
    const result = await check("markdown");
    expect(result.exitCode).toBe(1);
    const out = result.stdout;
    // Nothing can open an HTML tag or an autolink.
    expect(out).not.toContain("<");
    // No bracket, parenthesis, bang, emphasis, code, strike, math or pipe of the payloads is left unescaped.
    const rows = out.split("\n").filter((line) => line.startsWith("| http"));
    expect(rows).toHaveLength(Object.keys(TEXTS).length + 1);
    for (const row of rows) {
      const [page, link, , text] = cells(row);
      expect(cells(row)).toHaveLength(4);
      for (const value of [page!, link!, text!]) {
        expect(value).not.toMatch(/(^|[^\\])(\\\\)*[[\]()!*_`~|$]/);
        // And no URL can be autolinked: its colon is escaped.
        expect(value).not.toMatch(/(^|[^\\])(\\\\)*:/);
      }
    }
    // Escaped, and read back exactly as written.
    const texts = rows.map((row) => rendered(cells(row)[3]!));
    for (const text of Object.values(TEXTS)) expect(texts).toContain(text);
    expect(out).toContain("&lt;img src\\=x onerror\\=alert\\(1\\)&gt;");
    expect(out).toContain("\\[x\\]\\(javascript\\:alert\\(1\\)\\)");
    const urls = rows.map((row) => rendered(cells(row)[1]!));
    expect(urls).toContain(site.url("/x](javascript:alert(1))![i](/p.png)*_|"));
  });
});

describe("--format csv", () => {
  test("a cell a spreadsheet would run as a formula starts with a single quote", async () => {
    const result = await check("csv");
    expect(result.exitCode).toBe(1);
    const lines = result.stdout.split("\r\n");
    const textOf = (name: keyof typeof TEXTS) => lines.find((line) => line.includes(`/gone-${name},`))!;
    expect(textOf("formula")).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    expect(textOf("plus")).toContain(",'+1+2,");
    expect(textOf("minus")).toContain(",'-2+3,");
    expect(textOf("at")).toContain(`,"'@SUM(1,2)",`);
    // Other cells are left as they are.
    expect(textOf("html")).toContain(",<img src=x onerror=alert(1)>,");
    // No cell of any row starts with a formula character.
    for (const line of lines.slice(1)) expect(line).not.toMatch(/(^|,)"?[=+\-@\t\r]/);
  });
});

/**
 * A small RFC 4180 reader (quoted fields, doubled quotes, line breaks inside quotes) with a choice of
 * separator: LinkChecker writes `;`-separated CSV through Python's csv module and quotes only when needed,
 * so a link text with a `;` or a newline must not shift the columns.
 */

/** The rows of `text`, each an array of fields; lines starting with `comment` (outside quotes) are skipped. */
export function parseCsv(text: string, separator = ",", comment?: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (atLineStart && comment !== undefined && text.startsWith(comment, i)) {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
      continue;
    }
    atLineStart = false;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === separator) {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      atLineStart = true;
    } else field += ch;
  }
  if (field !== "" || row.length > 0) rows.push([...row, field]);
  return rows;
}

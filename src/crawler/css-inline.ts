import { cssUrls } from "./css-urls.ts";

/**
 * The CSS inside a page (`<style>` and `style`), returning raw URLs resolved later like every href. A `<style>`
 * whose `type` is not CSS is skipped, as a browser does.
 */
export class InlineCss {
  private styleText: string[] | null = null;

  /** The URLs of a `style` attribute's declarations. */
  attribute(value: string): string[] {
    // Every URL form (url(), src(), image-set()) needs a parenthesis: most style attributes have none.
    return value.includes("(") ? cssUrls(value, { source: "declarations" }) : [];
  }

  /** A `<style>` element opens; its text follows through `text()`. */
  openStyle(attribs: Readonly<Record<string, string>>): void {
    const type = attribs.type?.trim().toLowerCase();
    this.styleText = type === undefined || type === "" || type === "text/css" ? [] : null;
  }

  /** Text inside the open `<style>` (the scanner gives raw text there, in chunks). */
  text(data: string): void {
    this.styleText?.push(data);
  }

  /** The open `<style>` ends: its URLs. */
  closeStyle(): string[] {
    const text = this.styleText;
    this.styleText = null;
    return text === null ? [] : cssUrls(text.join(""), { source: "stylesheet" });
  }
}

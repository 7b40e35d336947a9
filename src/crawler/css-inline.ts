import { cssUrls } from "./css-urls.ts";

/**
 * The CSS written inside a page: `<style>` elements and `style` attributes. The extractor hands it the
 * events and gets raw URLs back (resolved later against the document's base, like every href of the page).
 * A `<style>` whose `type` is not CSS (`text/x-scss`, a template language) is not CSS to a browser either.
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

import { ParseErrorMessage, TokenType, tokenizer, type CSSToken } from "@csstools/css-tokenizer";

/**
 * The URLs a piece of CSS makes a browser fetch, read from @csstools/css-tokenizer's tokens (docs/decisions.md,
 * "Links inside CSS"). One pass with constant state, so a hostile sheet costs time in proportion to its size.
 */

/** How the text being scanned is used: a whole stylesheet, or a `style` attribute's declarations. */
export type CssSource = "stylesheet" | "declarations";

/** Options of one scan. */
export interface CssScanOptions {
  source: CssSource;
  /**
   * The text is the start of a longer one (a body cut at a size limit): a URL that runs into the end of the
   * text is a cut one, not the URL the author wrote, so it is left out.
   */
  cut?: boolean;
}

/** How deep image-set() calls are tracked inside each other; deeper ones still count as one. */
const MAX_IMAGE_SETS = 16;

const URL_FUNCTIONS: ReadonlySet<string> = new Set(["url", "src"]);
const IMAGE_SET_FUNCTIONS: ReadonlySet<string> = new Set(["image-set", "-webkit-image-set"]);
// A data: URL carries its content: nothing to fetch, and sheets hold thousands of them (inline icons).
const DATA_URL = /^[\t\n\f\r ]*data:/i;
const EOF_ERRORS: ReadonlySet<string> = new Set([ParseErrorMessage.UnexpectedEOFInURL, ParseErrorMessage.UnexpectedEOFInString]);

/** Calls `onUrl` with each URL of `css` as written (escapes resolved, not yet resolved against a base), in order. */
export function scanCssUrls(css: string, options: CssScanOptions, onUrl: (raw: string) => void): void {
  let endedAtEof = false;
  const tokens = tokenizer(
    { css },
    {
      onParseError: (error) => {
        if (EOF_ERRORS.has(error.message)) endedAtEof = true;
      },
    },
  );
  const next = (): CSSToken => {
    endedAtEof = false;
    return tokens.nextToken();
  };
  const emit = (raw: string): void => {
    if (options.cut === true && endedAtEof) return;
    if (raw.trim() === "" || raw.startsWith("#") || DATA_URL.test(raw)) return;
    onUrl(raw);
  };

  // Depth of ( and function nesting in the current declaration; image-set() calls open at which depth.
  let depth = 0;
  const imageSets: number[] = [];
  // Declarations of a style attribute are inside a block already: no at-rule applies there.
  const topLevel = options.source === "declarations" ? 1 : 0;
  let blockDepth = topLevel;
  let inNamespace = false;
  // The previous significant token opened `@import` or `url("`/`src(`: a string now is a URL.
  let afterImport = false;
  let afterUrlFunction = false;
  // A `;`, `{` or `}` ends a declaration or prelude: what it left open (an unclosed image-set, a stray `(`)
  // must not make the strings of the next one look like URLs.
  const endStatement = (): void => {
    depth = 0;
    imageSets.length = 0;
    inNamespace = false;
  };

  for (let token = next(); token[0] !== TokenType.EOF; token = next()) {
    const type = token[0];
    if (type === TokenType.Whitespace || type === TokenType.Comment) continue;
    const urlString = afterImport || (afterUrlFunction && !inNamespace);
    afterImport = false;
    afterUrlFunction = false;
    switch (type) {
      case TokenType.URL:
        if (!inNamespace) emit(token[4].value);
        break;
      case TokenType.Function: {
        const name = token[4].value.toLowerCase();
        if (URL_FUNCTIONS.has(name)) afterUrlFunction = true;
        else if (IMAGE_SET_FUNCTIONS.has(name) && imageSets.length < MAX_IMAGE_SETS) {
          imageSets.push(depth);
        }
        depth++;
        break;
      }
      case TokenType.OpenParen:
        depth++;
        break;
      case TokenType.CloseParen:
        if (depth > 0) depth--;
        if (imageSets.length > 0 && imageSets[imageSets.length - 1] === depth) imageSets.pop();
        break;
      case TokenType.String:
        if (urlString) emit(token[4].value);
        else if (imageSets.length > 0 && depth === imageSets[imageSets.length - 1]! + 1) emit(token[4].value);
        break;
      case TokenType.AtKeyword: {
        const name = token[4].value.toLowerCase();
        // At-rules only count at the top level of a sheet: inside a block a browser ignores them.
        if (blockDepth === 0 && name === "import") afterImport = true;
        if (blockDepth === 0 && name === "namespace") inNamespace = true;
        break;
      }
      case TokenType.OpenCurly:
        blockDepth++;
        endStatement();
        break;
      case TokenType.CloseCurly:
        if (blockDepth > topLevel) blockDepth--;
        endStatement();
        break;
      case TokenType.Semicolon:
        endStatement();
        break;
      default:
        break;
    }
  }
}

/** Every URL of `css`, in order; see scanCssUrls. */
export function cssUrls(css: string, options: CssScanOptions): string[] {
  const urls: string[] = [];
  scanCssUrls(css, options, (raw) => urls.push(raw));
  return urls;
}

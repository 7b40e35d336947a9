import { decodeCss } from "../css-decode.ts";
import { extractStylesheetLinks } from "../css-extract.ts";
import { isSiteStylesheet, pageCut, type ContentReader } from "./content-reader.ts";

/**
 * The site's stylesheets, with `scan_stylesheets`: whatever linked them (what the answer is decides, not the
 * link's kind), collected whole up to max_body_bytes and read for the URLs in their CSS.
 */
export const stylesheetReader: ContentReader = {
  reads: (answer, target, context) => context.readCss === true && target.internal && isSiteStylesheet(answer, context.site),
  open: (_answer, _target, context) => ({
    // No consumer: css-extract reads the stylesheet whole.
    async finish(response) {
      const css = decodeCss(response.body, response.headers["content-type"]);
      const { links, dropped } = extractStylesheetLinks(css, response.finalUrl, { maxLinks: context.maxLinksPerPage, cut: response.truncated });
      const cut = pageCut(response.truncated, dropped, context);
      return {
        page: { url: response.finalUrl, links, cut, ids: null, stylesheet: true },
        findings: cut === null ? [] : [{ kind: "cut", cut, what: "stylesheet" }],
      };
    },
  }),
};

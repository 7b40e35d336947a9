/**
 * Seeded tag soup for the page readers' differential tests: the JS scanner against htmlparser2
 * (html-scanner.test.ts) and the Wasm reader against the JS scanner (wasm-reader.test.ts). Seeded, so a failure
 * names a document that fails again.
 */

/** A linear congruential generator in [0, 1]: the same numbers for the same seed on every run. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** What documents are made of. */
export interface SoupVocabulary {
  tagNames: readonly string[];
  attributeNames: readonly string[];
  values: readonly string[];
  texts: readonly string[];
  /** Comments, CDATA, doctypes, processing instructions and broken markup. */
  others: readonly string[];
}

/** Names in any case, SVG and MathML, raw text and RCDATA elements, near-misses of their names, void elements. */
export const SOUP: SoupVocabulary = {
  tagNames: [
    "a",
    "A",
    "p",
    "div",
    "svg",
    "math",
    "foreignObject",
    "foreignobject",
    "title",
    "desc",
    "mi",
    "script",
    "SCRIPT",
    "style",
    "textarea",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "template",
    "form",
    "img",
    "image",
    "br",
    "li",
    "ul",
    "table",
    "tr",
    "td",
    "option",
    "select",
    "input",
    "source",
    "picture",
    "video",
    "meta",
    "link",
    "clipPath",
    "b",
    "scriptx",
    "tit",
    "x-y",
    "h1",
    "body",
    "head",
    "my-widget",
  ],
  attributeNames: ["href", "HREF", "src", "id", "style", "name", "alt", "xlink:href", "rel", "data-src", "=x", '"q"', "a/b", "srcset"],
  values: ['"x"', "'y'", "z", '"a&amp;b"', "'&lt;&#60;&#x41'", "&amp", '"&notit;"', '""', "a>b", '"/"', "&", '"&amp=1"', "&ampx", `"a'b"`],
  texts: ["text", " ", "&amp;", "&amp", "&lt", "&#65;", "&#x", "&notanentity;", "<", "< p", "&nbsp", "\n", "-->", "]]>", "a&b", "&#0;", "&#xD800;", "&#128;"],
  others: [
    "<!-- c -->",
    "<!---->",
    "<!-->",
    "<!--->",
    "<!-- a --!> ",
    "<!-- --!x -- -->",
    "<![CDATA[ <a href=c> ]]>",
    "<![CDATA[x]]]>",
    "<!doctype html>",
    "<!x>",
    "<?pi?>",
    "</>",
    "</ x>",
    "</1>",
    "<1",
    "<!->",
    "<![CDAT>",
    "<!--a--->",
    "</title x>",
  ],
};

/** `base` with `more` added to each list, without repeats. */
export function widen(base: SoupVocabulary, more: Partial<SoupVocabulary>): SoupVocabulary {
  const join = (a: readonly string[], b: readonly string[] = []): string[] => [...new Set([...a, ...b])];
  return {
    tagNames: join(base.tagNames, more.tagNames),
    attributeNames: join(base.attributeNames, more.attributeNames),
    values: join(base.values, more.values),
    texts: join(base.texts, more.texts),
    others: join(base.others, more.others),
  };
}

/** Documents of 1–40 pieces: start tags with 0–3 attributes, end tags, texts and others. */
export function tagSoup(random: () => number, vocabulary: SoupVocabulary): () => string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const piece = (): string => {
    const r = random();
    if (r < 0.35) {
      let tag = `<${pick(vocabulary.tagNames)}`;
      for (let k = Math.floor(random() * 4); k > 0; k--) {
        tag += pick([" ", "\n", "/", "  "]) + pick(vocabulary.attributeNames);
        if (random() < 0.75) tag += pick(["=", " = ", "= "]) + pick(vocabulary.values);
      }
      return tag + pick([">", "/>", " />", ">", "/ >"]);
    }
    if (r < 0.55) return `</${pick(vocabulary.tagNames)}${pick([">", " >", " x>", "/>"])}`;
    if (r < 0.8) return pick(vocabulary.texts);
    return pick(vocabulary.others);
  };
  return () => {
    let html = "";
    for (let k = 1 + Math.floor(random() * 40); k > 0; k--) html += piece();
    return html;
  };
}

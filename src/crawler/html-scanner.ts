import { decodeHTML, decodeHTMLAttribute } from "entities/decode";

/**
 * htmlparser2's Parser events from one indexOf pass that slices only what the extractor reads (docs/decisions.md,
 * "A scanner of our own"); test/crawler/html-scanner.test.ts holds it to htmlparser2 event by event. A construct
 * cut by a chunk's end is re-read only once the kept text has doubled, so a huge tag costs linear time.
 */

/** What the scanner tells its user; the shape of htmlparser2's callbacks that the extractor implements. */
export interface ScannerCallbacks {
  onopentag(name: string, attribs: Record<string, string>): void;
  ontext(data: string): void;
  onclosetag(name: string, implied: boolean): void;
}

/**
 * Which attributes are read, by lowercased name: on a given tag, or on every tag; an attribute on neither list
 * is never cut from the page. Built once per set (the table its names are looked up in comes with it).
 */
export class ReadAttributes {
  readonly names: NameTable;
  /** Per tag, the names read on it, `everywhere` included: one lookup per tag instead of two per attribute. */
  private readonly onTag = new Map<string, ReadonlySet<string>>();
  /** What is read on a tag not in `byTag`: `everywhere`, or null when that is empty (nothing is cut). */
  private readonly elsewhere: ReadonlySet<string> | null;

  constructor(
    readonly byTag: ReadonlyMap<string, ReadonlySet<string>>,
    readonly everywhere: ReadonlySet<string>,
  ) {
    const all = new Set(everywhere);
    for (const [tag, names] of byTag) {
      for (const name of names) all.add(name);
      this.onTag.set(tag, new Set([...everywhere, ...names]));
    }
    this.names = new NameTable(all);
    this.elsewhere = everywhere.size > 0 ? everywhere : null;
  }

  /** The attribute names read on tag `tag`, or null when none is. */
  readOn(tag: string): ReadonlySet<string> | null {
    return this.onTag.get(tag) ?? this.elsewhere;
  }
}

/**
 * `cbs` with each tag's attributes checked: a callback reading one `attributes` does not name for the tag throws,
 * instead of silently getting undefined (a reader, JS or Wasm, cuts out only what it is told to). For tests over
 * real and generated pages; a property check per read, so not for crawls.
 */
export function checkAttributeReads(cbs: ScannerCallbacks, attributes: ReadAttributes): ScannerCallbacks {
  return { ...cbs, onopentag: (name, attribs) => cbs.onopentag(name, checkedReads(name, attribs, attributes.readOn(name.toLowerCase()))) };
}

/** `attribs` of a `<tag>`, throwing when a name outside `read` is asked for: it would read undefined whatever the page says. */
function checkedReads(tag: string, attribs: Record<string, string>, read: ReadonlySet<string> | null): Record<string, string> {
  const check = (name: string | symbol): void => {
    if (typeof name === "string" && read?.has(name) !== true) {
      throw new Error(
        `the attribute ${JSON.stringify(name)} of <${tag}> is read, but the scanner is not told to hand it (name it in the ReadAttributes the scanner is given)`,
      );
    }
  };
  return new Proxy(attribs, {
    get(target, name, receiver) {
      check(name);
      return Reflect.get(target, name, receiver);
    },
    has(target, name) {
      check(name);
      return Reflect.has(target, name);
    },
  });
}

/** A name looked up in place: not in the table, though of plain characters. */
const UNREAD = 0;
/** A name looked up in place: longer than any in a table, or with characters other than [A-Za-z0-9:-]. */
const UNUSUAL = 1;

/**
 * Names looked up from the characters of a string, ASCII case-insensitively, without cutting them out: the
 * name (lowercased), UNREAD for a name of plain characters not in the table, or UNUSUAL (then the caller cuts
 * and lowercases it, as htmlparser2 does, Unicode rules included).
 */
export class NameTable {
  /** Open addressing: each name at its hash's slot or the next free one after it. */
  private readonly slots: (string | undefined)[];
  private readonly mask: number;

  constructor(names: Iterable<string>) {
    const unique = [...new Set(names)];
    let size = 64;
    while (size < unique.length * 4) size *= 2;
    this.slots = new Array<string | undefined>(size).fill(undefined);
    this.mask = size - 1;
    for (const name of unique) {
      let slot = nameHash(name, 0, name.length) & this.mask;
      while (this.slots[slot] !== undefined) slot = (slot + 1) & this.mask;
      this.slots[slot] = name;
    }
  }

  lookup(s: string, from: number, to: number): string | typeof UNREAD | typeof UNUSUAL {
    const length = to - from;
    if (length > MAX_NAME_LENGTH) return UNUSUAL;
    const hash = nameHash(s, from, to);
    if (hash === -1) return UNUSUAL;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const name = this.slots[slot];
      if (name === undefined) return UNREAD;
      if (name.length === length && sameLowered(s, from, name)) return name;
    }
  }
}

/** Longer names are cut and lowercased the stock way (no element or attribute read here is this long). */
const MAX_NAME_LENGTH = 16;

function sameLowered(s: string, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (lowerAscii(s.charCodeAt(from + i)) !== name.charCodeAt(i)) return false;
  return true;
}

function lowerAscii(c: number): number {
  return c >= 65 && c <= 90 ? c | 0x20 : c;
}

/** A hash of the name's lowercased characters, or -1 when one is outside [A-Za-z0-9:-]. */
function nameHash(s: string, from: number, to: number): number {
  let hash = to - from;
  for (let i = from; i < to; i++) {
    const c = lowerAscii(s.charCodeAt(i));
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 58) || c === 45)) return -1;
    hash = (Math.imul(hash, 31) + c) | 0;
  }
  return hash & 0x7fffffff;
}

/** The elements of HTML (and obsolete ones still met), named without a cut. */
const HTML_ELEMENTS = new NameTable(
  (
    "a abbr acronym address area article aside audio b base bdi bdo big blockquote body br button canvas caption " +
    "center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed fieldset " +
    "figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe image img " +
    "input ins kbd label legend li link main map mark menu meta meter nav nobr noembed noframes noscript object ol " +
    "optgroup option output p param picture pre progress q rp rt ruby s samp script search section select slot " +
    "small source span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead time " +
    "title tr track tt u ul var video wbr math xmp plaintext"
  ).split(" "),
);

// htmlparser2's tree rules (Parser.ts), as data.
const P = new Set(["p"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "p"]);
const FORM_CONTROLS = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"]);
const TABLE_SECTIONS = new Set(["thead", "tbody"]);
const DD_DT = new Set(["dd", "dt"]);
const RT_RP = new Set(["rt", "rp"]);
/** An element opened closes the open elements of its set, innermost first, while the innermost is one of them. */
const OPEN_IMPLIES_CLOSE: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["a", new Set(["a"])],
  ["li", new Set(["li"])],
  ["p", P],
  ...["h1", "h2", "h3", "h4", "h5", "h6"].map((h): [string, ReadonlySet<string>] => [h, HEADINGS]),
  ...["select", "input", "output", "button", "datalist", "textarea"].map((f): [string, ReadonlySet<string>] => [f, FORM_CONTROLS]),
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", DD_DT],
  ["dt", DD_DT],
  ...("address article aside blockquote details div dl fieldset figcaption figure footer form header hr main nav ol pre " + "section table ul")
    .split(" ")
    .map((name): [string, ReadonlySet<string>] => [name, P]),
  ["rt", RT_RP],
  ["rp", RT_RP],
  ["tbody", TABLE_SECTIONS],
  ["tfoot", TABLE_SECTIONS],
]);
const VOID_ELEMENTS: ReadonlySet<string> = new Set(
  "area base basefont br col command embed frame hr img input isindex keygen link meta param source track wbr".split(" "),
);
/** Elements whose content is HTML again inside SVG or MathML (SVG's names in their adjusted case). */
const INTEGRATION_POINTS: ReadonlySet<string> = new Set(["mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignObject", "desc", "title"]);
/** SVG's camel-case element names (HTML's "adjust SVG tag names" table), by lowercased name. */
const SVG_NAMES: ReadonlyMap<string, string> = new Map(
  (
    "altGlyph altGlyphDef altGlyphItem animateColor animateMotion animateTransform clipPath feBlend feColorMatrix " +
    "feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting feDisplacementMap feDistantLight feDropShadow " +
    "feFlood feFuncA feFuncB feFuncG feFuncR feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset " +
    "fePointLight feSpecularLighting feSpotLight feTile feTurbulence foreignObject glyphRef linearGradient " +
    "radialGradient textPath"
  )
    .split(" ")
    .map((name) => [name.toLowerCase(), name]),
);

/** Content models of the elements whose content is not markup, by name (ASCII case-insensitive). */
const RAW_TEXT = 1;
const RCDATA = 2;
const PLAINTEXT = 3;
const TEXT_ONLY: ReadonlyMap<string, number> = new Map([
  ["script", RAW_TEXT],
  ["style", RAW_TEXT],
  ["xmp", RAW_TEXT],
  ["iframe", RAW_TEXT],
  ["noembed", RAW_TEXT],
  ["noframes", RAW_TEXT],
  ["title", RCDATA],
  ["textarea", RCDATA],
  ["plaintext", PLAINTEXT],
]);

const NONE = 0;
const SVG = 1;
const MATHML = 2;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const AMP = 0x26;
const DASH = 0x2d;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

function endsTagSection(c: number): boolean {
  return c === SLASH || c === GT || isWhitespace(c);
}

function isAsciiAlpha(c: number): boolean {
  const lower = c | 0x20;
  return lower >= 97 && lower <= 122;
}

/** The tag the scanner has just read; reused (one per scanner), never handed out. */
interface TagRead {
  /** Where the name ends (exclusive) and where the tag ends (just past its `>`), or -1 when cut off. */
  nameEnd: number;
  /** The element's name, as tagName gives it, once `nameEnd` is known. */
  name: string;
  end: number;
  selfClosing: boolean;
}

const EMPTY_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Open elements past which the scanner counts them by name (see openCounts), and below which it stops. */
const DEEP_STACK = 64;
const SHALLOW_STACK = 32;

/** Not an element being read: htmlparser2's "tagname" for an ignored second `<form>`. */
const IGNORED = "";

export class HtmlScanner {
  /** What is left of earlier chunks: a construct cut off at the end of the last one. */
  private pending = "";
  /** The length the next write must reach before the pending text is read again (see the file's comment). */
  private waitFor = 0;
  /** Text only, to the end tag of this element (its name, lowercased), or to the end of the page. */
  private textOnly: string | null = null;
  private textOnlyModel = 0;
  /** Open elements, innermost last, and the foreign-content context stack (htmlparser2's), innermost last. */
  private readonly stack: string[] = [];
  /**
   * How many of each name are open, kept only while the stack is deep: a page of 10 MB can open a million
   * elements, and each end tag of a name not open would otherwise search them all (quadratic, a crawl hung).
   */
  private openCounts: NameCounts | null = null;
  private readonly foreign: number[] = [NONE];
  private readonly tag: TagRead = { nameEnd: -1, name: "", end: -1, selfClosing: false };
  /** The attributes of the tag being read, when it has any read. */
  private attribs: Record<string, string> | null = null;

  constructor(
    private readonly wantsText: () => boolean,
    private readonly attributes: ReadAttributes,
    private readonly cbs: ScannerCallbacks,
  ) {}

  /**
   * Goes on with a page another reader began (the Wasm reader, past its caps): `open` are the elements it left
   * open, outermost first; nothing is reported for them.
   */
  adoptOpenElements(open: readonly string[]): void {
    for (const name of open) {
      this.stack.push(name);
      if (name === "svg") this.foreign.push(SVG);
      else if (name === "math") this.foreign.push(MATHML);
      else if (INTEGRATION_POINTS.has(name)) this.foreign.push(NONE);
    }
    if (this.stack.length > DEEP_STACK) this.openCounts = new NameCounts(this.stack);
  }

  write(chunk: string): void {
    if (this.pending !== "") {
      const joined = this.pending + chunk;
      if (joined.length < this.waitFor) {
        this.pending = joined;
        return;
      }
      this.pending = "";
      this.scan(joined, false);
    } else this.scan(chunk, false);
  }

  end(): void {
    const rest = this.pending;
    this.pending = "";
    if (rest !== "") this.scan(rest, true);
    // htmlparser2 reports the elements still open as closed, innermost first, without popping them.
    for (let i = this.stack.length - 1; i >= 0; i--) this.cbs.onclosetag(this.stack[i]!, true);
  }

  /** Keeps `s` from `from` for the next write. */
  private keep(s: string, from: number): void {
    this.pending = from === 0 ? s : s.slice(from);
    this.waitFor = this.pending.length * 2;
  }

  private scan(s: string, final: boolean): void {
    let i = 0;
    const n = s.length;
    while (i < n) {
      if (this.textOnly !== null) {
        i = this.scanTextOnly(s, i, final);
        if (i === -1) return;
        continue;
      }
      const lt = s.indexOf("<", i);
      if (lt === -1) {
        // Text to the end, but for a reference the next chunk may finish.
        const cut = final ? n : entityCut(s, i, n);
        this.text(s, i, cut, true);
        if (cut < n) this.keep(s, cut);
        return;
      }
      if (lt > i) this.text(s, i, lt, true);
      const next = this.markup(s, lt, final);
      if (next === -1) {
        this.keep(s, lt);
        return;
      }
      i = next;
    }
  }

  /** Text of the page, `decode`d unless raw text; cut only when someone reads it. */
  private text(s: string, from: number, to: number, decode: boolean): void {
    if (to <= from || !this.wantsText()) return;
    let data = s.slice(from, to);
    if (decode && data.includes("&")) data = this.textOnly === null ? decodeHTML(data) : rcdataDecoded(s, from, to, this.textOnly);
    if (data !== "") this.cbs.ontext(data);
  }

  /** Reads the markup at `lt` (a `<`): the index just past it, or -1 when it is cut off by the chunk's end. */
  private markup(s: string, lt: number, final: boolean): number {
    const n = s.length;
    if (lt + 1 >= n) {
      if (!final) return -1;
      this.text(s, lt, n, false);
      return n;
    }
    const c = s.charCodeAt(lt + 1);
    if (isAsciiAlpha(c)) return this.startTag(s, lt, final);
    if (c === SLASH) return this.endTag(s, lt, final);
    if (c === BANG) return this.declaration(s, lt, final);
    if (c === QUESTION) return this.toNextGt(s, lt + 2, final);
    // Not markup: the `<` is text.
    this.text(s, lt, lt + 1, false);
    return lt + 1;
  }

  /** A bogus comment, declaration or the rest of an end tag: past the next `>` (the page's end at its end). */
  private toNextGt(s: string, from: number, final: boolean): number {
    const gt = s.indexOf(">", from);
    if (gt !== -1) return gt + 1;
    return final ? s.length : -1;
  }

  /** `<!`: a comment, CDATA, a doctype or a bogus comment. */
  private declaration(s: string, lt: number, final: boolean): number {
    const n = s.length;
    const at = lt + 2;
    if (at >= n) return final ? n : -1;
    const c = s.charCodeAt(at);
    if (c === DASH) {
      if (at + 1 >= n) return final ? n : -1;
      if (s.charCodeAt(at + 1) !== DASH) return this.toNextGt(s, at + 1, final);
      return this.comment(s, at + 2, final);
    }
    if (c === 0x5b) {
      // `<![CDATA[`, exactly; anything else is a bogus comment to the next `>`.
      for (let k = 0; k < CDATA.length; k++) {
        if (at + 1 + k >= n) return final ? this.toNextGt(s, at + 1, true) : -1;
        if (s.charCodeAt(at + 1 + k) !== CDATA.charCodeAt(k)) return this.toNextGt(s, at + 1 + k, final);
      }
      const from = at + 1 + CDATA.length;
      const end = s.indexOf("]]>", from);
      if (end === -1) return final ? n : -1;
      // Text inside foreign content; a comment in HTML.
      if (this.foreign[this.foreign.length - 1] !== NONE) this.text(s, from, end, false);
      return end + 3;
    }
    return this.toNextGt(s, at, final);
  }

  /** A comment's content from `from`: past its end (`-->`, `--!>`, or at once `>` / `->`). */
  private comment(s: string, from: number, final: boolean): number {
    const n = s.length;
    if (from >= n) return final ? n : -1;
    if (s.charCodeAt(from) === GT) return from + 1;
    if (s.charCodeAt(from) === DASH) {
      if (from + 1 >= n) return final ? n : -1;
      if (s.charCodeAt(from + 1) === GT) return from + 2;
    }
    for (let dashes = s.indexOf("--", from); dashes !== -1; dashes = s.indexOf("--", dashes + 1)) {
      let k = dashes + 2;
      while (k < n && s.charCodeAt(k) === DASH) k++;
      if (k >= n) break;
      const c = s.charCodeAt(k);
      if (c === GT) return k + 1;
      if (c === BANG) {
        if (k + 1 >= n) break;
        if (s.charCodeAt(k + 1) === GT) return k + 2;
      }
      dashes = k - 1;
    }
    return final ? n : -1;
  }

  /** `</`: an end tag, `</>` (nothing), or a bogus comment. */
  private endTag(s: string, lt: number, final: boolean): number {
    const n = s.length;
    const at = lt + 2;
    if (at >= n) {
      if (!final) return -1;
      this.text(s, lt, n, false);
      return n;
    }
    const c = s.charCodeAt(at);
    if (c === GT) return at + 1;
    if (!isAsciiAlpha(c)) return this.toNextGt(s, at, final);
    let nameEnd = at + 1;
    while (nameEnd < n && !endsTagSection(s.charCodeAt(nameEnd))) nameEnd++;
    if (nameEnd >= n) return final ? n : -1;
    const gt = s.indexOf(">", nameEnd);
    if (gt === -1 && !final) return -1;
    this.closeTag(this.tagName(s, at, nameEnd));
    return gt === -1 ? n : gt + 1;
  }

  /** A start tag at `lt`: its events, and past it; -1 when cut off. */
  private startTag(s: string, lt: number, final: boolean): number {
    const inForeign = this.foreign[this.foreign.length - 1] !== NONE;
    const tag = this.tag;
    this.attribs = null;
    this.readTag(s, lt + 1);
    const attribs = this.attribs ?? EMPTY_ATTRIBUTES;
    this.attribs = null;
    if (tag.end === -1) {
      if (!final) return -1;
      // Cut off by the page's end: htmlparser2 has opened the element (its implied closes) if its name ended.
      if (tag.nameEnd !== -1) this.openElement(tag.name);
      return s.length;
    }
    const name = this.openElement(tag.name);
    if (name !== IGNORED) {
      this.cbs.onopentag(name, attribs);
      if (VOID_ELEMENTS.has(name)) this.cbs.onclosetag(name, true);
      else if (tag.selfClosing && this.foreign[this.foreign.length - 1] !== NONE && this.stack[this.stack.length - 1] === name) this.popElement(true);
    }
    // Whether the content is text only was decided where the tag began, outside foreign content.
    const model = inForeign ? undefined : TEXT_ONLY.get(tag.name);
    if (model !== undefined) {
      this.textOnly = tag.name;
      this.textOnlyModel = model;
    }
    return tag.end;
  }

  /**
   * Reads the tag whose name starts at `from` to its `>` (htmlparser2's tokenizer states from "in tag name" on)
   * into `this.tag`, and the attributes `attributes` reads on it into `this.attribs`.
   */
  private readTag(s: string, from: number): void {
    const tag = this.tag;
    const n = s.length;
    tag.nameEnd = -1;
    tag.end = -1;
    tag.selfClosing = false;
    let i = from + 1;
    while (i < n && !endsTagSection(s.charCodeAt(i))) i++;
    if (i >= n) return;
    tag.nameEnd = i;
    tag.name = this.tagName(s, from, i);
    const reads = this.attributes.readOn(tag.name);
    // Before an attribute's name, or just after a `/`.
    let afterSlash = false;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === GT) {
        tag.end = i + 1;
        tag.selfClosing = afterSlash;
        return;
      }
      if (isWhitespace(c)) {
        i++;
        continue;
      }
      if (c === SLASH) {
        afterSlash = true;
        i++;
        continue;
      }
      afterSlash = false;
      // An attribute's name: its first character whatever it is, then to `=`, whitespace, `/` or `>`.
      const nameStart = i;
      i++;
      while (i < n) {
        const d = s.charCodeAt(i);
        if (d === EQUALS || endsTagSection(d)) break;
        i++;
      }
      if (i >= n) return;
      const nameEnd = i;
      // After the name: whitespace, then `=` and a value, or another attribute (this one without a value).
      while (i < n && isWhitespace(s.charCodeAt(i))) i++;
      if (i >= n) return;
      if (s.charCodeAt(i) !== EQUALS) {
        if (reads !== null) this.attribute(s, reads, nameStart, nameEnd, 0, 0);
        continue;
      }
      i++;
      while (i < n && isWhitespace(s.charCodeAt(i))) i++;
      if (i >= n) return;
      const q = s.charCodeAt(i);
      if (q === DQUOTE || q === SQUOTE) {
        const close = s.indexOf(q === DQUOTE ? '"' : "'", i + 1);
        if (close === -1) return;
        if (reads !== null) this.attribute(s, reads, nameStart, nameEnd, i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < n) {
          const d = s.charCodeAt(i);
          if (d === GT || isWhitespace(d)) break;
          i++;
        }
        if (i >= n) return;
        if (reads !== null) this.attribute(s, reads, nameStart, nameEnd, valueStart, i);
      }
    }
  }

  /** Takes one attribute of the tag when `reads` (the names read on it) has it and it is not already taken (the first one wins). */
  private attribute(s: string, reads: ReadonlySet<string>, nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
    const known = this.attributes.names.lookup(s, nameStart, nameEnd);
    let name: string;
    if (known === UNREAD) return;
    if (known === UNUSUAL) name = s.slice(nameStart, nameEnd).toLowerCase();
    else name = known;
    if (!reads.has(name)) return;
    let attribs = this.attribs;
    if (attribs === null) {
      attribs = {};
      this.attribs = attribs;
    } else if (Object.hasOwn(attribs, name)) return;
    let value = valueEnd > valueStart ? s.slice(valueStart, valueEnd) : "";
    if (value.includes("&")) value = decodeHTMLAttribute(value);
    attribs[name] = value;
  }

  /** The element name of s[from, to) as htmlparser2's readTagName gives it (lowercased, SVG's case, `image`). */
  private tagName(s: string, from: number, to: number): string {
    const known = HTML_ELEMENTS.lookup(s, from, to);
    const lowered = typeof known === "string" ? known : s.slice(from, to).toLowerCase();
    const foreign = this.foreign;
    const context = foreign[foreign.length - 1];
    if (context === SVG) return SVG_NAMES.get(lowered) ?? lowered;
    if (foreign.length > 1) {
      const adjusted = SVG_NAMES.get(lowered);
      if (adjusted !== undefined && this.isOpen(adjusted)) return adjusted;
    }
    if (context === NONE) return lowered === "image" ? "img" : lowered;
    return lowered;
  }

  /** htmlparser2's emitOpenTag up to the attributes: implied closes, the stack; IGNORED for a second form. */
  private openElement(name: string): string {
    const stack = this.stack;
    if (name === "form" && this.isOpen("form")) return IGNORED;
    const closes = OPEN_IMPLIES_CLOSE.get(name);
    if (closes !== undefined) while (stack.length > 0 && closes.has(stack[stack.length - 1]!)) this.popElement(true);
    if (!VOID_ELEMENTS.has(name)) {
      stack.push(name);
      if (this.openCounts !== null) this.openCounts.add(name);
      else if (stack.length > DEEP_STACK) this.openCounts = new NameCounts(stack);
      if (name === "svg") this.foreign.push(SVG);
      else if (name === "math") this.foreign.push(MATHML);
      else if (INTEGRATION_POINTS.has(name)) this.foreign.push(NONE);
    }
    return name;
  }

  /** Whether an element named `name` is open. */
  private isOpen(name: string): boolean {
    return this.openCounts === null ? this.stack.includes(name) : this.openCounts.has(name);
  }

  private popElement(implied: boolean): void {
    const name = this.stack.pop()!;
    if (this.openCounts !== null) {
      if (this.stack.length < SHALLOW_STACK) this.openCounts = null;
      else this.openCounts.remove(name);
    }
    if (name === "svg" || name === "math" || INTEGRATION_POINTS.has(name)) this.foreign.pop();
    this.cbs.onclosetag(name, implied);
  }

  /** htmlparser2's onclosetag for an end tag named `name`. */
  private closeTag(name: string): void {
    const stack = this.stack;
    if (!VOID_ELEMENTS.has(name)) {
      // isOpen's answer without its search: lastIndexOf finds the name or not; the counts only spare it a search.
      const at = this.openCounts === null || this.openCounts.has(name) ? stack.lastIndexOf(name) : -1;
      if (at !== -1) {
        while (stack.length - 1 > at) this.popElement(true);
        this.popElement(false);
      } else if (name === "p") {
        this.openElement("p");
        this.cbs.onopentag("p", EMPTY_ATTRIBUTES);
        if (stack[stack.length - 1] === "p") this.popElement(false);
      }
    } else if (name === "br") {
      this.cbs.onopentag("br", EMPTY_ATTRIBUTES);
      this.cbs.onclosetag("br", false);
    }
  }

  /** Text to the end tag of the text-only element being read: the index after that end tag, or -1 when cut off. */
  private scanTextOnly(s: string, from: number, final: boolean): number {
    const n = s.length;
    const model = this.textOnlyModel;
    const decode = model === RCDATA;
    if (model === PLAINTEXT) {
      this.text(s, from, n, false);
      return n;
    }
    const name = this.textOnly!;
    for (let lt = s.indexOf("</", from); lt !== -1; lt = s.indexOf("</", lt + 1)) {
      const after = lt + 2 + name.length;
      if (after >= n) {
        // At the page's end an end tag needs the character after its name: none follows, so it is text.
        if (final) break;
        // Perhaps the end tag, cut off: read again with the next chunk.
        const cut = decode ? rcdataCut(s, from, lt, name) : lt;
        this.text(s, from, cut, decode);
        this.keep(s, cut);
        return -1;
      }
      if (!sameLowered(s, lt + 2, name) || !endsTagSection(s.charCodeAt(after))) continue;
      this.text(s, from, lt, decode);
      this.textOnly = null;
      this.textOnlyModel = 0;
      return lt;
    }
    if (final) {
      this.text(s, from, n, decode);
      return n;
    }
    // No end tag yet: the text so far, keeping what could begin an end tag or a character reference.
    let cut = Math.max(from, n - name.length - 2);
    const lastLt = s.lastIndexOf("<", n - 1);
    cut = lastLt >= cut ? lastLt : n;
    if (decode) cut = rcdataCut(s, from, cut, name);
    this.text(s, from, cut, decode);
    if (cut < n) this.keep(s, cut);
    return -1;
  }
}

/** Names counted: how many of each are in a multiset of open elements. */
class NameCounts {
  private readonly counts = new Map<string, number>();

  constructor(names: Iterable<string>) {
    for (const name of names) this.add(name);
  }

  add(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Takes one `name` away; a name no longer there is forgotten, so a page of many distinct names keeps few. */
  remove(name: string): void {
    const left = (this.counts.get(name) ?? 0) - 1;
    if (left > 0) this.counts.set(name, left);
    else this.counts.delete(name);
  }

  has(name: string): boolean {
    return this.counts.has(name);
  }
}

const CDATA = "CDATA[";

/**
 * RCDATA text (`title`, `textarea`) decoded as htmlparser2 does: an `&` right after the start of what could be
 * the element's end tag (`<`, `</`, `</ti` …) is not read as a character reference.
 */
export function rcdataDecoded(s: string, from: number, to: number, name: string): string {
  let out = "";
  let start = from;
  for (let amp = s.indexOf("&", from); amp !== -1 && amp < to; amp = s.indexOf("&", amp + 1)) {
    if (!afterEndTagStart(s, amp, name)) continue;
    out += `${decodeHTML(s.slice(start, amp))}&`;
    start = amp + 1;
  }
  return out + decodeHTML(s.slice(start, to));
}

/** entityCut for RCDATA text, which also keeps a reference's `&` together with an end tag's start before it. */
function rcdataCut(s: string, from: number, to: number, name: string): number {
  const cut = entityCut(s, from, to);
  if (cut === to || !afterEndTagStart(s, cut, name)) return cut;
  return Math.max(from, s.lastIndexOf("<", cut - 1));
}

/** Whether s just before `at` ends with a proper, non-empty start of `</name` (ASCII case-insensitive). */
function afterEndTagStart(s: string, at: number, name: string): boolean {
  for (let length = 1; length <= name.length + 1 && length <= at; length++) {
    const start = at - length;
    if (s.charCodeAt(start) !== LT) continue;
    if (length === 1) return true;
    if (s.charCodeAt(start + 1) !== SLASH) return false;
    return length === 2 || sameLowered(s, start + 2, name.slice(0, length - 2));
  }
  return false;
}

/**
 * Where text from `from` to `to` may be cut without cutting a character reference: before a final `&` whose
 * run of letters, digits and `#` reaches `to` (the reference may go on in the next chunk), else `to`.
 */
function entityCut(s: string, from: number, to: number): number {
  let i = to - 1;
  while (i >= from) {
    const c = s.charCodeAt(i);
    if (c === AMP) return i;
    if (!((c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c === 0x23)) return to;
    i--;
  }
  return to;
}

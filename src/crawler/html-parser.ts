import { noFTL } from "bun:jsc";
import { Parser, Tokenizer } from "htmlparser2";

/**
 * htmlparser2's Parser, minus the strings the extractor never reads. Every tag of every page passes through
 * it, and the stock parser cuts a string for each tag name, each attribute name and value, and each run of
 * text; the extractor reads a few attributes of a few tags and the text of anchors. This parser:
 * - names the elements of HTML from the characters in place (a table lookup), cutting only unknown names;
 * - reads an attribute only when `attributes` lists it for that tag or for every tag, the rest unsliced;
 * - cuts text only when `wantsText()` says someone reads it (now and then anyway, see `ontext`);
 * - passes over a run of text or of an attribute value in one loop, where the stock tokenizer takes a state
 *   step per character (LeanTokenizer).
 * Everything else (the tokenizer, the open elements, implied end tags, SVG names, positions) is the stock
 * parser's own. htmlparser2 is pinned: test/crawler/html-parser.test.ts compares the two, event by event.
 *
 * The tokenizer's state loop (`parse`, one function for every htmlparser2 user in the process) is kept out of
 * JavaScriptCore's last compiler tier: with the runs above passed over in their own loops, compiling that big
 * function cost more memory than it saved time (docs/decisions.md "Each page cheaper").
 */

/**
 * Which attributes are read, by lowercased name: on a given tag, or on every tag; an attribute on neither list
 * is never cut from the page. Built once per set (the table its names are looked up in comes with it).
 */
export class ReadAttributes {
  readonly names: NameTable;

  constructor(
    readonly byTag: ReadonlyMap<string, ReadonlySet<string>>,
    readonly everywhere: ReadonlySet<string>,
  ) {
    const all = new Set(everywhere);
    for (const onTag of byTag.values()) for (const name of onTag) all.add(name);
    this.names = new NameTable(all);
  }

  /** Whether attribute `name` is read on tag `tag`. */
  reads(tag: string, name: string): boolean {
    return this.everywhere.has(name) || this.byTag.get(tag)?.has(name) === true;
  }
}

export class LeanParser extends Parser {
  /** Characters of text passed over since the parser last cut a slice here. */
  private skipped = 0;
  /** The attribute being read is one nobody wants: its name and value are never cut. */
  private skipping = false;

  constructor(
    private readonly wantsText: () => boolean,
    private readonly attributes: ReadAttributes,
    cbs: ConstructorParameters<typeof Parser>[0],
  ) {
    super(cbs, { Tokenizer: LeanTokenizer });
  }

  override ontext(start: number, endIndex: number): void {
    this.skipped += endIndex - start;
    // The parser lets go of the chunks it was written only when it cuts a slice, so a long run of text with no
    // tag in it (a huge inline script, a streamed text-only page) is cut now and then to keep them bounded.
    if (this.wantsText() || this.skipped > MAX_UNSLICED_TEXT) {
      this.skipped = 0;
      super.ontext(start, endIndex);
      return;
    }
    this.endIndex = endIndex - 1;
    this.startIndex = endIndex;
  }

  override onattribname(start: number, endIndex: number): void {
    const self = this as unknown as ParserInternals;
    const known = this.attributes.names.lookup(self, start, endIndex);
    let name: string | null;
    if (known === UNUSUAL) {
      super.onattribname(start, endIndex);
      name = self.attribname;
    } else {
      this.startIndex = start;
      // A name of plain characters that is not in the table is none of the names read.
      name = known === UNREAD ? null : known;
      if (name !== null) self.attribname = name;
    }
    this.skipping = name === null || !this.attributes.reads(self.tagname, name);
  }

  override onattribdata(start: number, endIndex: number): void {
    if (!this.skipping) super.onattribdata(start, endIndex);
  }

  override onattribentity(cp: number): void {
    if (!this.skipping) super.onattribentity(cp);
  }

  override onattribend(quote: Parameters<Parser["onattribend"]>[0], endIndex: number): void {
    if (!this.skipping) {
      super.onattribend(quote, endIndex);
      return;
    }
    this.skipping = false;
    this.endIndex = endIndex;
  }
}

/** Text passed over without a slice at most, in characters (see LeanParser.ontext). */
const MAX_UNSLICED_TEXT = 64 * 1024;

/** The stock parser's fields and methods used here (private in its types, stable in the pinned version). */
interface ParserInternals {
  tagname: string;
  attribname: string;
  buffers: string[];
  bufferOffset: number;
  foreignContext: unknown[];
  readTagName(start: number, endIndex: number): string;
}

const UNREAD = 0;
const UNUSUAL = 1;

/**
 * Names looked up from the characters in the parser's current buffer, ASCII case-insensitively. `lookup`
 * answers the name (lowercased, as the stock parser would), UNREAD for a name of plain characters
 * ([a-z0-9:-]) not in the table, or UNUSUAL when the name is not wholly in the current buffer or has other
 * characters: then the stock parser cuts it, which also lets go of the buffers behind it.
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

  lookup(parser: ParserInternals, start: number, endIndex: number): string | typeof UNREAD | typeof UNUSUAL {
    const buffer = parser.buffers[0]!;
    const from = start - parser.bufferOffset;
    const length = endIndex - start;
    if (from < 0 || from + length > buffer.length || length > MAX_NAME_LENGTH) return UNUSUAL;
    const hash = nameHash(buffer, from, from + length);
    if (hash === -1) return UNUSUAL;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const name = this.slots[slot];
      if (name === undefined) return UNREAD;
      if (name.length === length && sameLowered(buffer, from, name)) return name;
    }
  }
}

/** Whether `buffer` from `from` holds `name` when ASCII-lowercased. */
function sameLowered(buffer: string, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (lowerAscii(buffer.charCodeAt(from + i)) !== name.charCodeAt(i)) return false;
  return true;
}

/** Longer names are cut the stock way (no element or attribute read here is this long). */
const MAX_NAME_LENGTH = 16;

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
  // Never -1, which means "unusual".
  return hash & 0x7fffffff;
}

/**
 * The elements of HTML (and the obsolete ones still met), named without a cut outside SVG and MathML. `image`
 * is not here: outside SVG the stock parser renames it `img`, so it goes the stock way.
 */
const HTML_ELEMENTS = new NameTable(
  (
    "a abbr acronym address area article aside audio b base bdi bdo big blockquote body br button canvas caption " +
    "center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed fieldset " +
    "figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img " +
    "input ins kbd label legend li link main map mark menu meta meter nav nobr noembed noframes noscript object ol " +
    "optgroup option output p param picture pre progress q rp rt ruby s samp script search section select slot " +
    "small source span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead time " +
    "title tr track tt u ul var video wbr math"
  ).split(" "),
);

// readTagName is private in htmlparser2's types, so it is replaced on the prototype rather than overridden.
const stockReadTagName = (Parser.prototype as unknown as ParserInternals).readTagName;
(LeanParser.prototype as unknown as ParserInternals).readTagName = function readTagName(this: ParserInternals, start: number, endIndex: number): string {
  // Inside SVG or MathML names keep their case rules (foreignObject, …): the stock way.
  if (this.foreignContext.length === 1) {
    const name = HTML_ELEMENTS.lookup(this, start, endIndex);
    if (typeof name === "string") return name;
  }
  return stockReadTagName.call(this, start, endIndex);
};

/** The stock tokenizer's fields and methods used here (private in its types, stable in the pinned version). */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  parse(): void;
}

const LT = 0x3c;
const AMP = 0x26;

/**
 * htmlparser2's tokenizer, except that in text and in quoted attribute values a character that is neither `<`
 * (or the closing quote) nor `&` moves straight on to the next one that is: the stock states do nothing for
 * such characters but take a turn of the tokenizer's loop each. The loop steps past `index` afterwards, so
 * `index` is left on the last character passed over.
 */
class LeanTokenizer extends Tokenizer {}

const tokenizer = Tokenizer.prototype as unknown as TokenizerInternals;
noFTL(tokenizer.parse);
const stockStateText = tokenizer.stateText;
const stockInAttributeValue = tokenizer.handleInAttributeValue;
const lean = LeanTokenizer.prototype as unknown as TokenizerInternals;

/** Moves `index` onto the last character before the next `stop` or `&` (or the buffer's end). */
function passOver(self: TokenizerInternals, stop: number): void {
  const buffer = self.buffer;
  let at = self.index - self.offset + 1;
  while (at < buffer.length) {
    const next = buffer.charCodeAt(at);
    if (next === stop || next === AMP) break;
    at++;
  }
  self.index = at - 1 + self.offset;
}

lean.stateText = function stateText(this: TokenizerInternals, c: number): void {
  if (c === LT || c === AMP) stockStateText.call(this, c);
  else passOver(this, LT);
};

lean.handleInAttributeValue = function handleInAttributeValue(this: TokenizerInternals, c: number, quote: number): void {
  if (c === quote || c === AMP) stockInAttributeValue.call(this, c, quote);
  else passOver(this, quote);
};
